//! The state a kernel finds at its first instruction, per target and wave size: which registers
//! hold the kernarg segment pointer, the workgroup ids and the work-item ids, what EXEC is, and
//! how many user SGPRs the kernel descriptor must declare. This module computes it, from the
//! target table's columns, in one place; the kernel template ([`crate::generator`]), the kernel
//! descriptor ([`crate::template::descriptor`]) and the emulated device all read it, and
//! `tests/all/entry_state_llvm.rs` holds it to what `llc-19` and `llc-22` choose for every target and wave.
//!
//! Sources:
//! - LLVM AMDGPUUsage, "Initial Kernel Execution State": the user SGPRs come first, in the order
//!   of the enabled fields (private segment buffer 4, dispatch ptr 2, queue ptr 2, kernarg segment
//!   ptr 2, ...), USER_SGPR_COUNT of them; then the enabled system SGPRs (workgroup id x, y, z, in
//!   that order); the work-item ids are VGPRs (packed into v0 where the target column
//!   [`ds_isa::target::Target::packed_workitem_ids`] says so: CDNA 2 and later and
//!   GFX11+; in v0, v1, v2 elsewhere); EXEC holds the wave's work-items.
//! - AMDGPUUsage, "Kernel Descriptor" and "compute_pgm_rsrc2 for GFX6-GFX12": USER_SGPR_COUNT
//!   \[5:1\], ENABLE_SGPR_WORKGROUP_ID_X/Y/Z \[9:7\]; "Kernel Code Properties":
//!   ENABLE_SGPR_KERNARG_SEGMENT_PTR.
//! - LLVM `FeatureArchitectedSGPRs` (target column `architected_sgprs`, every gfx12 target): the
//!   workgroup ids arrive in `ttmp9` (x) and `ttmp7` (y \[15:0\], z \[31:16\]) and no SGPR after the
//!   user SGPRs is written (`SIISelLowering`'s `allocateSystemSGPRs`; `llc` reads `ttmp9`; Mesa
//!   RADV reserves no SGPR for them on GFX12). LLVM still sets ENABLE_SGPR_WORKGROUP_ID_X.
//! - LLVM `FeatureUserSGPRInit16Bug` (target column `user_sgpr_init16_bug`: Navi 31 and Navi 33),
//!   which `GCNSubtarget::hasUserSGPRInit16Bug` applies in wave32 only: LLVM pads the user SGPRs
//!   until user + system SGPRs number 16 (`SIISelLowering::allocateSystemSGPRs`), so a kernel
//!   with a kernarg pointer and workgroup id x declares 15 user SGPRs and finds the id in `s15`.
//!   What the hardware does with fewer is not documented; the emulated device delivers no
//!   workgroup id then.
//! - LLVM `FeatureClusters` (the generation's `ClusterRegs`, gfx12.5): workgroups may be
//!   dispatched in clusters; `ttmp9` then holds the cluster id x, `ttmp6` \[3:0\] the workgroup's
//!   id in its cluster and \[15:12\] the cluster's last id, and `hwreg(HW_REG_IB_STS2, 6, 4)` is
//!   zero on a dispatch without clusters (llvm-project PRs #159120, #157978). A code object cannot
//!   declare that it is dispatched without clusters (`"amdgpu-cluster-dims"="0,0,0"` leaves no
//!   trace in it; only fixed dims do, as `.cluster_dims`), so the kernels compute the id as
//!   `llc-22` does for a kernel without cluster attributes: `IB_STS2[9:6] == 0 ? ttmp9 :
//!   ttmp9 * (ttmp6[15:12] + 1) + ttmp6[3:0]`, into `s2` ([`KernelEntry::workgroup_id_insts`],
//!   the same instructions and registers as `llc-22`'s, held to it by `tests/all/entry_state_llvm.rs`).

use ds_isa::gen::{Bits, ClusterRegs};
use ds_isa::inst::{Inst, Operand, Sop2Op, SopcOp, SopkOp};
use ds_isa::target::Target;
use ds_reference::wave::WaveSize;
use std::fmt::{self, Write};

/// User SGPR fields in the order the hardware fills them, with their sizes in SGPRs, by the
/// kernel-code-properties bit that enables each (AMDGPUUsage, "Initial Kernel Execution State"):
/// private segment buffer, dispatch ptr, queue ptr, kernarg segment ptr.
const USER_FIELDS: [(u16, u8); 4] = [(0, 4), (1, 2), (2, 2), (3, 2)];
/// The kernel-code-properties bit of ENABLE_SGPR_KERNARG_SEGMENT_PTR.
const KERNARG_BIT: u16 = 3;
/// User + system SGPRs a wave32 kernel needs on a target with the init-16 bug.
const INIT16: u8 = 16;
/// The trap temporaries architected SGPRs use: ttmp9 = x, ttmp7 = y \[15:0\] and z \[31:16\].
const TTMP_ID_X: u8 = 9;
const TTMP_ID_YZ: u8 = 7;
/// Bits of a packed work-item id (x \[9:0\], y \[19:10\], z \[29:20\]).
const PACKED_ID_BITS: u8 = 10;
/// The SGPRs the workgroup id is computed in where workgroups may come in clusters: the id, and
/// two scratch registers (LLVM's: `s2`, `s3`, `s4`, free before the kernarg addresses land).
const CLUSTER_ID_SGPRS: [u8; 3] = [2, 3, 4];

/// Where a value arrives: bits `shift .. shift + width` of register `reg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slot {
    /// The register (an SGPR, a trap temporary or a VGPR).
    pub reg: Operand,
    /// The lowest bit of the value.
    pub shift: u8,
    /// Bits of the value (32: the whole register).
    pub width: u8,
}

impl Slot {
    fn whole(reg: Operand) -> Slot {
        Slot {
            reg,
            shift: 0,
            width: 32,
        }
    }

    /// The mask of the slot's bits in its register.
    pub fn mask(&self) -> u32 {
        let ones = if self.width >= 32 {
            u32::MAX
        } else {
            (1u32 << self.width) - 1
        };
        ones << self.shift
    }

    /// `value` placed in the slot's bits of `old`.
    pub fn place(&self, old: u32, value: u32) -> u32 {
        (old & !self.mask()) | (value << self.shift & self.mask())
    }
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.reg)?;
        if self.width < 32 {
            write!(f, " [{}:{}]", self.shift + self.width - 1, self.shift)?;
        }
        Ok(())
    }
}

/// What a kernel descriptor asks the hardware to set up at entry (the fields the entry state
/// depends on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// USER_SGPR_COUNT.
    pub user_sgprs: u8,
    /// Kernel code properties \[3:0\]: the user SGPR fields enabled (private segment buffer,
    /// dispatch ptr, queue ptr, kernarg segment ptr).
    pub user_fields: u16,
    /// ENABLE_SGPR_WORKGROUP_ID_X, _Y, _Z.
    pub workgroup_ids: [bool; 3],
    /// ENABLE_VGPR_WORKITEM_ID: 0 = x, 1 = x and y, 2 = x, y and z.
    pub workitem_dims: u8,
}

impl Request {
    /// The request of a descriptor's fields: `properties` is kernel_code_properties,
    /// `rsrc2` compute_pgm_rsrc2.
    pub fn from_fields(properties: u16, rsrc2: u32) -> Request {
        Request {
            user_sgprs: (rsrc2 >> 1 & 0x1f) as u8,
            user_fields: properties & 0xf,
            workgroup_ids: [
                rsrc2 >> 7 & 1 == 1,
                rsrc2 >> 8 & 1 == 1,
                rsrc2 >> 9 & 1 == 1,
            ],
            workitem_dims: (rsrc2 >> 11 & 3) as u8,
        }
    }

    /// SGPRs the enabled user fields fill (before any padding).
    pub fn enabled_user_sgprs(&self) -> u8 {
        USER_FIELDS
            .iter()
            .filter(|(bit, _)| self.user_fields >> bit & 1 == 1)
            .map(|&(_, n)| n)
            .sum()
    }

    /// The first SGPR of the kernarg segment pointer pair, when the field is enabled.
    pub fn kernarg_sgpr(&self) -> Option<u8> {
        if self.user_fields >> KERNARG_BIT & 1 == 0 {
            return None;
        }
        Some(
            USER_FIELDS
                .iter()
                .filter(|(bit, _)| *bit < KERNARG_BIT && self.user_fields >> bit & 1 == 1)
                .map(|&(_, n)| n)
                .sum(),
        )
    }

    /// System SGPRs the request enables (the workgroup ids).
    pub fn system_sgprs(&self) -> u8 {
        self.workgroup_ids.iter().filter(|&&on| on).count() as u8
    }
}

/// The user SGPR count LLVM declares for `enabled_user` SGPRs of user fields and `system` system
/// SGPRs on `target` in waves of `wave`: the enabled ones, padded to 16 - `system` where the
/// init-16 bug applies (wave32 on a `user_sgpr_init16_bug` target).
pub fn user_sgpr_count(target: &Target, wave: WaveSize, enabled_user: u8, system: u8) -> u8 {
    if init16_applies(target, wave) {
        enabled_user.max(INIT16.saturating_sub(system))
    } else {
        enabled_user
    }
}

/// Where the target's workgroups may come in clusters, the registers that say where (its
/// generation's; the ids are the architected SGPRs').
fn clusters(target: &Target) -> Option<ClusterRegs> {
    target
        .generation
        .clusters()
        .filter(|_| target.architected_sgprs)
}

fn init16_applies(target: &Target, wave: WaveSize) -> bool {
    target.user_sgpr_init16_bug && wave.is_wave32() && !target.architected_sgprs
}

/// What the hardware of a target hands a kernel at entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// The first SGPR of the kernarg segment pointer pair (`s[k:k+1]`).
    pub kernarg: Option<u8>,
    /// Where workgroup id x, y, z arrive; `None` where the hardware does not deliver it.
    pub workgroup_ids: [Option<Slot>; 3],
    /// Why an enabled workgroup id is not delivered (the init-16 bug), if one is not.
    pub lost_ids: Option<String>,
    /// Where work-item id x, y, z arrive (those past ENABLE_VGPR_WORKITEM_ID read 0).
    pub workitem_ids: [Slot; 3],
    /// User SGPRs declared past the enabled fields (LLVM's padding): nothing is written there.
    pub padding: std::ops::Range<u8>,
    /// Where workgroups may come in clusters: the registers the hardware also defines (the
    /// cluster place trap temporary; the dispatch's cluster field, zero without clusters).
    pub clusters: Option<ClusterRegs>,
}

impl Delivery {
    /// The registers the entry state defines, in words (for a message about a register it does
    /// not): e.g. `s[0:1] = kernarg pointer, ttmp9 = workgroup id x, v0 [9:0] = work-item id x`.
    pub fn describe(&self, req: &Request) -> String {
        let mut parts = Vec::new();
        if let Some(k) = self.kernarg {
            parts.push(format!("s[{k}:{}] = kernarg pointer", k + 1));
        }
        for (slot, dim) in self.workgroup_ids.iter().zip(["x", "y", "z"]) {
            if let Some(slot) = slot {
                parts.push(format!("{slot} = workgroup id {dim}"));
            }
        }
        for (i, (slot, dim)) in self.workitem_ids.iter().zip(["x", "y", "z"]).enumerate() {
            if i <= usize::from(req.workitem_dims) {
                parts.push(format!("{slot} = work-item id {dim}"));
            }
        }
        if let Some(c) = self.clusters {
            let (id, offset, size) = c.dispatch_field;
            parts.push(format!(
                "ttmp{} = the place in a cluster, hwreg({id}, {offset}, {size}) = 0 (no \
                 clusters)",
                c.place_ttmp
            ));
        }
        parts.push("EXEC".into());
        let mut s = parts.join(", ");
        if !self.padding.is_empty() {
            s.push_str(&format!(
                "; s{}..s{} are padding user SGPRs with no value",
                self.padding.start,
                self.padding.end - 1
            ));
        }
        if let Some(why) = &self.lost_ids {
            s.push_str(&format!("; no workgroup id is delivered: {why}"));
        }
        s
    }
}

/// What `target`'s hardware delivers at entry to a kernel in waves of `wave` whose descriptor
/// asks for `req`. Every register it does not name is undefined at entry.
pub fn delivery(target: &Target, wave: WaveSize, req: &Request) -> Delivery {
    let enabled = req.enabled_user_sgprs();
    let user = req.user_sgprs;
    let system = req.system_sgprs();
    let mut lost_ids = None;
    let workgroup_ids = if target.architected_sgprs {
        let yz = |shift| Slot {
            reg: Operand::Ttmp(TTMP_ID_YZ),
            shift,
            width: 16,
        };
        let slots = [Slot::whole(Operand::Ttmp(TTMP_ID_X)), yz(0), yz(16)];
        std::array::from_fn(|i| req.workgroup_ids[i].then_some(slots[i]))
    } else if init16_applies(target, wave) && user + system < INIT16 && system > 0 {
        lost_ids = Some(format!(
            "{target} in {wave} needs at least {INIT16} user + system SGPRs (LLVM \
             FeatureUserSGPRInit16Bug), the descriptor declares {user} + {system}"
        ));
        [None; 3]
    } else {
        let mut next = user;
        req.workgroup_ids.map(|on| {
            on.then(|| {
                next += 1;
                Slot::whole(Operand::Sgpr(next - 1))
            })
        })
    };
    let workitem_ids = if target.packed_workitem_ids {
        std::array::from_fn(|i| Slot {
            reg: Operand::Vgpr(0),
            shift: PACKED_ID_BITS * i as u8,
            width: PACKED_ID_BITS,
        })
    } else {
        std::array::from_fn(|i| Slot::whole(Operand::Vgpr(i as u8)))
    };
    Delivery {
        kernarg: req.kernarg_sgpr().filter(|k| k + 2 <= user),
        workgroup_ids,
        lost_ids,
        workitem_ids,
        padding: enabled.min(user)..user,
        clusters: clusters(target),
    }
}

/// EXEC at entry of a wave holding `work_items` work-items (the wave's lanes at most): one bit
/// per work-item, the lowest lanes.
pub fn exec(wave: WaveSize, work_items: usize) -> u64 {
    match work_items.min(wave.lanes()) {
        64 => u64::MAX,
        n => (1u64 << n) - 1,
    }
}

/// The entry state of the harness's kernels: a kernarg segment pointer (the only user field),
/// workgroup id x (the case), work-item id x (the lane), one wave per workgroup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelEntry {
    /// USER_SGPR_COUNT the descriptor declares.
    pub user_sgprs: u8,
    /// The first SGPR of the kernarg segment pointer.
    pub kernarg: u8,
    /// Where workgroup id x arrives.
    pub workgroup_id_x: Slot,
    /// Where work-item id x arrives.
    pub workitem_id_x: Slot,
    /// EXEC at entry (every lane: a workgroup is one full wave).
    pub exec: u64,
    /// Where workgroups may come in clusters: `workgroup_id_x` holds the cluster id then, and
    /// the kernel computes its workgroup id ([`KernelEntry::workgroup_id_insts`]).
    pub clusters: Option<ClusterRegs>,
}

impl KernelEntry {
    /// The request the harness's kernels make: the kernarg segment pointer, workgroup id x,
    /// work-item id x, with the user SGPR count LLVM would declare on `target` in `wave`.
    pub fn request(target: &Target, wave: WaveSize) -> Request {
        let bare = Request {
            user_sgprs: 0,
            user_fields: 1 << KERNARG_BIT,
            workgroup_ids: [true, false, false],
            workitem_dims: 0,
        };
        Request {
            user_sgprs: user_sgpr_count(
                target,
                wave,
                bare.enabled_user_sgprs(),
                bare.system_sgprs(),
            ),
            ..bare
        }
    }

    /// The entry state of a harness kernel on `target` in waves of `wave`.
    pub fn of(target: &Target, wave: WaveSize) -> KernelEntry {
        let req = KernelEntry::request(target, wave);
        let d = delivery(target, wave, &req);
        KernelEntry {
            user_sgprs: req.user_sgprs,
            kernarg: d
                .kernarg
                .expect("the kernels' kernarg pointer is a user SGPR"),
            workgroup_id_x: d.workgroup_ids[0]
                .expect("LLVM's user SGPR count delivers the kernels' workgroup id"),
            workitem_id_x: d.workitem_ids[0],
            exec: exec(wave, wave.lanes()),
            clusters: d.clusters,
        }
    }

    /// The register the kernel reads workgroup id x from: where the hardware delivers it (the
    /// whole register on every target so far), or where workgroups may come in clusters the
    /// SGPR [`KernelEntry::workgroup_id_insts`] computes it in.
    pub fn workgroup_id_reg(&self) -> Operand {
        debug_assert_eq!(self.workgroup_id_x.width, 32);
        match self.clusters {
            Some(_) => Operand::Sgpr(CLUSTER_ID_SGPRS[0]),
            None => self.workgroup_id_x.reg,
        }
    }

    /// The instructions that compute workgroup id x where workgroups may come in clusters (none
    /// elsewhere): `llc-22`'s, register for register: the cluster's width from the place
    /// register's last id, the id in the cluster, whether the dispatch has clusters (the hardware
    /// register field), then `cluster id * width + id in cluster`, or the plain id without
    /// clusters. They write `s2`, `s3` and `s4` and must run before anything else lands there.
    pub fn workgroup_id_insts(&self) -> Vec<(Inst, &'static str)> {
        let Some(c) = self.clusters else {
            return Vec::new();
        };
        let [id, in_cluster, field] = CLUSTER_ID_SGPRS.map(Operand::Sgpr);
        let (group, place) = (self.workgroup_id_x.reg, Operand::Ttmp(c.place_ttmp));
        let sop2 = |op, sdst, src0, src1| Inst::Sop2 {
            op,
            sdst,
            src0,
            src1,
        };
        // `s_bfe_u32`'s second source: the field's offset [4:0] and width [22:16].
        let bfe = |f: Bits| Operand::imm((f.bits << 16 | f.shift) as i32);
        let id_in_cluster = if c.id_x.shift == 0 {
            sop2(
                Sop2Op::AndB32,
                in_cluster,
                place,
                Operand::imm(c.id_x.mask() as i32),
            )
        } else {
            sop2(Sop2Op::BfeU32, in_cluster, place, bfe(c.id_x))
        };
        let (hwreg, offset, size) = c.dispatch_field;
        vec![
            (
                sop2(Sop2Op::BfeU32, id, place, bfe(c.max_id_x)),
                "the cluster's last id x (ttmp6 [15:12])",
            ),
            (
                id_in_cluster,
                "the workgroup's id x in its cluster (ttmp6 [3:0])",
            ),
            (
                sop2(Sop2Op::AddI32, id, id, Operand::Int(1)),
                "the cluster's width",
            ),
            (
                Inst::Sopk {
                    op: SopkOp::GetregB32,
                    sdst: field,
                    simm16: hwreg | u16::from(offset) << 6 | u16::from(size - 1) << 11,
                },
                "zero when the dispatch has no clusters",
            ),
            (
                sop2(Sop2Op::MulI32, id, group, id),
                "cluster id (ttmp9) * width",
            ),
            (sop2(Sop2Op::AddI32, in_cluster, in_cluster, id), ""),
            (
                Inst::Sopc {
                    op: SopcOp::CmpEqU32,
                    src0: field,
                    src1: Operand::Int(0),
                },
                "",
            ),
            (
                sop2(Sop2Op::CselectB32, id, group, in_cluster),
                "s2 = workgroup id x (ttmp9 itself without clusters)",
            ),
        ]
    }
}

/// Why the harness's kernels find their workgroup id where they do on `target` in `wave`, in
/// words (the `why` column of [`markdown_table`], and the canary's messages).
pub fn layout_reason(target: &Target, wave: WaveSize) -> &'static str {
    if clusters(target).is_some() {
        "architected SGPRs and clusters: s2 computed from ttmp9, ttmp6, IB_STS2 as llc does"
    } else if target.architected_sgprs {
        "architected SGPRs: ids in ttmp9 / ttmp7"
    } else if init16_applies(target, wave) {
        "init-16 bug: user SGPRs padded to 16 - 1"
    } else {
        "plain: ids after the user SGPRs"
    }
}

/// The entry state of the harness's kernels on every target code objects are built for (the
/// processors, then the generic targets), in each wave size it runs, as the markdown table
/// docs/architecture.md carries (a test keeps them equal).
pub fn markdown_table() -> String {
    let mut s = String::from(
        "| target | wave | kernarg pointer | workgroup id x | work-item id x | EXEC | user SGPRs | why |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for t in ds_isa::target::all().filter(|t| crate::check_target(t).is_ok()) {
        for wave in crate::wave_sizes(t) {
            let e = KernelEntry::of(t, wave);
            let why = layout_reason(t, wave);
            let id = match e.clusters {
                Some(_) => format!("{} (from {})", e.workgroup_id_reg(), e.workgroup_id_x),
                None => e.workgroup_id_x.to_string(),
            };
            let _ = writeln!(
                s,
                "| {t} | {wave} | s[{}:{}] | {id} | {} | {} | {} | {why} |",
                e.kernarg,
                e.kernarg + 1,
                e.workitem_id_x,
                if wave.is_wave32() {
                    "exec_lo = all 32 lanes"
                } else {
                    "exec = all 64 lanes"
                },
                e.user_sgprs,
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use ds_isa::target::TARGETS;

    fn plain() -> &'static Target {
        TARGETS
            .iter()
            .find(|t| !t.architected_sgprs && !t.user_sgpr_init16_bug)
            .unwrap()
    }

    #[test]
    fn plain_targets_take_the_id_after_the_kernarg_pointer_in_both_waves() {
        for wave in WaveSize::ALL {
            let e = KernelEntry::of(plain(), wave);
            assert_eq!(e.user_sgprs, 2);
            assert_eq!(e.kernarg, 0);
            assert_eq!(e.workgroup_id_reg(), Operand::Sgpr(2));
            assert_eq!(e.workitem_id_x.to_string(), "v0 [9:0]");
        }
    }

    #[test]
    fn the_init16_bug_pads_wave32_only() {
        for t in TARGETS.iter().filter(|t| t.user_sgpr_init16_bug) {
            let w32 = KernelEntry::of(t, WaveSize::Wave32);
            assert_eq!(w32.user_sgprs, 15, "{t}");
            assert_eq!(w32.workgroup_id_reg(), Operand::Sgpr(15), "{t}");
            let d = delivery(
                t,
                WaveSize::Wave32,
                &KernelEntry::request(t, WaveSize::Wave32),
            );
            assert_eq!(d.padding, 2..15, "{t}");
            let w64 = KernelEntry::of(t, WaveSize::Wave64);
            assert_eq!(
                (w64.user_sgprs, w64.workgroup_id_reg()),
                (2, Operand::Sgpr(2))
            );
            // The unpadded layout in wave32 gets no workgroup id, and says why.
            let short = Request {
                user_sgprs: 2,
                ..KernelEntry::request(t, WaveSize::Wave32)
            };
            let d = delivery(t, WaveSize::Wave32, &short);
            assert_eq!(d.workgroup_ids, [None; 3], "{t}");
            assert!(d.lost_ids.unwrap().contains("16"), "{t}");
        }
    }

    #[test]
    fn architected_sgprs_deliver_ids_in_ttmp9_and_ttmp7_halves() {
        for t in TARGETS.iter().filter(|t| t.architected_sgprs) {
            for wave in crate::wave_sizes(t) {
                let e = KernelEntry::of(t, wave);
                assert_eq!((e.user_sgprs, e.kernarg), (2, 0));
                assert_eq!(e.workgroup_id_x.reg, Operand::Ttmp(9));
                let all = Request {
                    workgroup_ids: [true; 3],
                    ..KernelEntry::request(t, wave)
                };
                let ids = delivery(t, wave, &all)
                    .workgroup_ids
                    .map(|s| s.unwrap().to_string());
                assert_eq!(ids, ["ttmp9", "ttmp7 [15:0]", "ttmp7 [31:16]"]);
            }
        }
    }

    #[test]
    fn user_fields_fill_in_order_and_system_sgprs_follow_the_declared_count() {
        let t = plain();
        // Private segment buffer (4) + dispatch ptr (2) + kernarg (2), 9 declared, ids x and z.
        let req = Request {
            user_sgprs: 9,
            user_fields: 0b1011,
            workgroup_ids: [true, false, true],
            workitem_dims: 2,
        };
        assert_eq!(req.kernarg_sgpr(), Some(6));
        let d = delivery(t, WaveSize::Wave64, &req);
        assert_eq!(d.kernarg, Some(6));
        assert_eq!(d.padding, 8..9);
        assert_eq!(
            d.workgroup_ids,
            [
                Some(Slot::whole(Operand::Sgpr(9))),
                None,
                Some(Slot::whole(Operand::Sgpr(10)))
            ]
        );
        // A kernarg pointer past the declared user SGPRs is not delivered.
        let short = Request {
            user_sgprs: 7,
            ..req
        };
        assert_eq!(delivery(t, WaveSize::Wave64, &short).kernarg, None);
    }

    /// Where workgroups may come in clusters (gfx12.5), the kernel computes its id into s2 with
    /// llc-22's eight instructions, reading ttmp9, ttmp6 and IB_STS2[9:6]; elsewhere it reads the
    /// delivered register and computes nothing.
    #[test]
    fn a_cluster_target_computes_its_workgroup_id_as_llc_does() {
        let mut seen = 0;
        for t in TARGETS {
            for wave in crate::wave_sizes(t) {
                let e = KernelEntry::of(t, wave);
                let insts = e.workgroup_id_insts();
                if t.generation.clusters().is_none() {
                    assert!(insts.is_empty() && e.clusters.is_none(), "{t}");
                    assert_eq!(e.workgroup_id_reg(), e.workgroup_id_x.reg, "{t}");
                    continue;
                }
                seen += 1;
                assert_eq!(e.workgroup_id_reg(), Operand::Sgpr(2), "{t}");
                let text: Vec<String> = insts
                    .iter()
                    .map(|(i, _)| i.text(t.generation).to_string())
                    .collect();
                assert_eq!(
                    text,
                    [
                        "s_bfe_u32 s2, ttmp6, 0x4000c",
                        "s_and_b32 s3, ttmp6, 15",
                        "s_add_co_i32 s2, s2, 1",
                        "s_getreg_b32 s4, hwreg(HW_REG_IB_STS2, 6, 4)",
                        "s_mul_i32 s2, ttmp9, s2",
                        "s_add_co_i32 s3, s3, s2",
                        "s_cmp_eq_u32 s4, 0",
                        "s_cselect_b32 s2, ttmp9, s3",
                    ],
                    "{t}"
                );
                let d = delivery(t, wave, &KernelEntry::request(t, wave));
                assert!(d.describe(&KernelEntry::request(t, wave)).contains("ttmp6"));
            }
        }
        assert_eq!(seen, 2, "both GFX 12.5 processors, wave32");
    }

    #[test]
    fn slots_place_values_in_their_bits() {
        let z = Slot {
            reg: Operand::Ttmp(7),
            shift: 16,
            width: 16,
        };
        assert_eq!(z.mask(), 0xffff_0000);
        assert_eq!(z.place(0x1234_5678, 0xabcd), 0xabcd_5678);
        assert_eq!(exec(WaveSize::Wave64, 64), u64::MAX);
        assert_eq!(exec(WaveSize::Wave32, 64), 0xffff_ffff);
        assert_eq!(exec(WaveSize::Wave32, 3), 0b111);
    }
}
