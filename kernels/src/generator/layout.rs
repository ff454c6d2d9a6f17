//! Where a kernel keeps its VGPRs ([`Layout`]): the operands of the instruction under test and
//! the template's own registers, one placement for every kernel template (generation), and the
//! instruction under test with those registers ([`test_inst`]). Generic: nothing here depends on
//! the generation or the target, only on the variant (its op's operand shapes and its `regs`).

use super::error::GenError;
use ds_isa::ds::{DsInst, Field, Isa};
use ds_reference::wave::Variant;

/// VGPR of the instruction's ADDR operand.
pub const ADDR: u8 = 4;
/// First VGPR of DATA0.
pub const DATA0: u8 = 8;
/// First VGPR of DATA1.
pub const DATA1: u8 = 12;
/// First VGPR of VDST.
pub const VDST: u8 = 16;
/// VGPRs the kernel uses without `regs` (v0..v19).
pub const VGPR_COUNT: u32 = 20;
/// First VGPR of VDST when DATA1 is 8 dwords (`v[12:19]`; gfx12's BVH push8 forms).
pub const VDST_AFTER_DATA8: u8 = 20;
/// VGPRs the kernel of an op with an 8-dword DATA1 uses without `regs` (v0..v23).
pub const VGPR_COUNT_DATA8: u32 = 24;
/// The largest VGPR budget a wave32 kernel can declare (GRANULATED_WORKITEM_VGPR_COUNT).
pub const MAX_VGPRS: u32 = 256;
/// Where a kernel keeps its VGPRs: the operands of the instruction under test and the template's
/// own registers. One placement for every kernel template (generation): a template asks the layout
/// for registers and never names a VGPR itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// ADDR's register.
    pub addr: u8,
    /// DATA0's first register.
    pub data0: u8,
    /// DATA1's first register.
    pub data1: u8,
    /// VDST's first register.
    pub vdst: u8,
    /// The lane id (work-item id x).
    pub lane: u8,
    /// The byte offset of the lane's record in a buffer (and of its dword in the LDS copy).
    pub offset: u8,
    /// Scratch of the LDS copy loops.
    pub scratch: u8,
    /// VGPRs the kernel uses (the descriptor's budget).
    pub vgpr_count: u32,
    /// The variant names its operands' registers (`regs`): load and dump exactly them.
    pub named: bool,
    /// With `acc`: the first of the 12 VGPRs through which DATA0, DATA1 and VDST pass on their
    /// way to and from their AccVGPRs (4 each, in that order), apart from every operand number.
    pub stage: Option<u8>,
    /// AccVGPRs the kernel uses (0 without `acc`): up to the highest operand register.
    pub agpr_count: u32,
}

impl Layout {
    /// The layout of `v`: the fixed one without `regs`; with `regs`, the operands where they say
    /// and the template's registers in the lowest VGPRs they leave free.
    pub fn of(v: &Variant) -> Result<Layout, GenError> {
        let l = Layout::of_vgprs(v)?;
        Ok(if v.acc { l.with_stage(v) } else { l })
    }

    /// The layout with every operand in VGPRs.
    fn of_vgprs(v: &Variant) -> Result<Layout, GenError> {
        let Some(regs) = v.regs else {
            // An 8-dword DATA1 runs into VDST's place: VDST moves up past it.
            let wide = v.op.info().operands.data1 > 4;
            return Ok(Layout {
                addr: ADDR,
                data0: DATA0,
                data1: DATA1,
                vdst: if wide { VDST_AFTER_DATA8 } else { VDST },
                lane: 0,
                offset: 1,
                scratch: 2,
                vgpr_count: if wide { VGPR_COUNT_DATA8 } else { VGPR_COUNT },
                named: false,
                stage: None,
                agpr_count: 0,
            });
        };
        regs.check(v.op).map_err(GenError::Regs)?;
        let info = v.op.info();
        let used: Vec<u8> = regs.words(info).into_iter().map(|(r, _, _)| r).collect();
        // At most 13 operand registers, so three of v0..v15 are always free.
        let mut free = (0u8..=255).filter(|r| !used.contains(r));
        let mut next = || free.next().expect("at most 13 of 256 VGPRs are operands");
        let (lane, offset, scratch) = (next(), next(), next());
        let top = used.iter().chain(&[lane, offset, scratch]).copied().max();
        let vgpr_count = u32::from(top.unwrap_or(0)) + 1;
        debug_assert!(vgpr_count <= MAX_VGPRS);
        Ok(Layout {
            addr: regs.addr.unwrap_or(0),
            data0: regs.data0.unwrap_or(0),
            data1: regs.data1.unwrap_or(0),
            vdst: regs.vdst.unwrap_or(0),
            lane,
            offset,
            scratch,
            vgpr_count,
            named: true,
            stage: None,
            agpr_count: 0,
        })
    }

    /// An `acc` variant's layout: DATA0, DATA1 and VDST in the AccVGPRs of their numbers, staged
    /// through the lowest 12 VGPRs from an even one that hold neither an operand number nor a template register
    /// (so a device that reads an operand from the VGPR of its number, not its AccVGPR, reads a
    /// register the kernel never wrote). The VGPR budget covers the operand numbers too.
    fn with_stage(mut self, v: &Variant) -> Layout {
        let info = v.op.info();
        let mut taken: Vec<u8> = vec![self.addr, self.lane, self.offset, self.scratch];
        let mut top_agpr = 0u32;
        for field in [Field::Data0, Field::Data1, Field::Vdst] {
            let n = if self.named || field != Field::Vdst {
                info.operands.dwords(field)
            } else {
                4
            };
            for k in 0..n {
                let r = self.reg(field) + k;
                taken.push(r);
                top_agpr = top_agpr.max(u32::from(r) + 1);
            }
        }
        // Even, so every staged tuple starts at an even VGPR (targets without unaligned tuples
        // need it).
        let stage = (0u8..=244)
            .step_by(2)
            .find(|&b| (b..b + 12).all(|r| !taken.contains(&r)))
            .expect("13 operand registers and 4 of the template's leave 12 in a row free");
        self.vgpr_count = self.vgpr_count.max(u32::from(stage) + 12);
        self.stage = Some(stage);
        self.agpr_count = top_agpr;
        self
    }

    /// The VGPR an operand's registers are loaded into and dumped from: its own, or with `acc`
    /// (DATA0, DATA1, VDST) its staging VGPRs.
    pub fn vgpr_of(&self, field: Field) -> u8 {
        match (self.stage, field) {
            (Some(s), Field::Data0) => s,
            (Some(s), Field::Data1) => s + 4,
            (Some(s), Field::Vdst) => s + 8,
            _ => self.reg(field),
        }
    }

    /// The register of operand `field`.
    pub fn reg(&self, field: Field) -> u8 {
        match field {
            Field::Addr => self.addr,
            Field::Data0 => self.data0,
            Field::Data1 => self.data1,
            Field::Vdst => self.vdst,
        }
    }
}

/// The instruction under test with the layout's registers, for generation or target `isa`.
pub fn test_inst(isa: impl Into<Isa>, v: &Variant) -> Result<DsInst, GenError> {
    let layout = Layout::of(v)?;
    let mut inst = v.inst();
    let operands = v.op.info().operands;
    for field in Field::ALL {
        if operands.dwords(field) > 0 {
            inst.set_reg(field, layout.reg(field));
        }
    }
    inst.validate(isa).map_err(GenError::Offsets)?;
    Ok(inst)
}
