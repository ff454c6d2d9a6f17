//! The kernel's symbol name for a variant: what a code object's kernel and a launch that runs it
//! both carry, so the generator and the ABI agree without naming each other.

use ds_reference::wave::Variant;

/// The kernel's symbol name: unique per variant, e.g. `ds_add_rtn_u32_o16_0_l1024_m111` (offset0,
/// offset1, LDS size, then FP32 denormals, FP16/64 denormals and IEEE as 0/1), and with `regs` the
/// operands' first VGPRs: `_r` then `a` addr, `p` data0, `q` data1, `v` vdst, each with its number
/// (`ds_load_2addr_b32_o0_1_l512_m111_ra4v4`); a wave64 variant's name ends in `_w64`, an `acc`
/// variant's (data and vdst in AccVGPRs) in `_acc`.
pub fn kernel_name(v: &Variant) -> String {
    let mut name = format!(
        "{}_o{}_{}_l{}_m{}{}{}",
        v.op.name(),
        v.offset0,
        v.offset1,
        v.lds_size,
        u8::from(v.mode.fp32_denormals),
        u8::from(v.mode.fp16_fp64_denormals),
        u8::from(v.mode.ieee)
    );
    if let Some(regs) = v.regs {
        name.push_str("_r");
        for (letter, reg) in [
            ('a', regs.addr),
            ('p', regs.data0),
            ('q', regs.data1),
            ('v', regs.vdst),
        ] {
            if let Some(r) = reg {
                name.push(letter);
                name.push_str(&r.to_string());
            }
        }
    }
    if !v.wave.is_wave32() {
        name.push_str(&format!("_w{}", v.wave.lanes()));
    }
    if v.acc {
        name.push_str("_acc");
    }
    name
}
