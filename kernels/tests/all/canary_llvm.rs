//! The canary kernel against LLVM: for every installed oracle release (19 and 22) and every
//! target it knows, in both wave sizes, `llvm-mc-N` (with `-mattr=+wavefrontsize64` for wave64)
//! assembles the canary's listing, inside the same `.amdhsa_kernel` directives, and `ld.lld-N`
//! links it: the code is the canary's bytes and the descriptor its descriptor (entry offset
//! aside). So every instruction the canary adds to the template's (a `v_mov_b32` from `ttmp9`,
//! `exec_lo`, `exec_hi` and `m0`, `s_and_b32` of the workgroup id) is encoded as LLVM encodes it.

use crate::common;

use ds_kernels::canary::Canary;
use ds_kernels::code_object;

#[test]
fn llvm_mc_and_ld_lld_build_the_canary_to_our_bytes_in_both_wave_sizes() {
    let mut checked = 0;
    for (llvm, t) in common::llvm_targets() {
        let Some(lld) = common::tool(&llvm, "ld.lld") else {
            continue;
        };
        for wave in ds_kernels::wave_sizes(t) {
            let c = Canary::new(t, wave).unwrap();
            let dir = common::temp_dir(&format!("canary-{}-{t}-{}", llvm.major, wave.lanes()));
            let (asm, obj, so) = (dir.join("c.s"), dir.join("c.o"), dir.join("c.so"));
            std::fs::write(
                &asm,
                code_object::assembly(t, std::slice::from_ref(&c.kernel)),
            )
            .unwrap();
            let mcpu = format!("-mcpu={t}");
            let mut args = vec!["-triple=amdgcn-amd-amdhsa", mcpu.as_str()];
            if !wave.is_wave32() {
                args.push("-mattr=+wavefrontsize64");
            }
            args.extend(["-filetype=obj", asm.to_str().unwrap()]);
            args.extend(["-o", obj.to_str().unwrap()]);
            common::run(&llvm.mc(), &args, None);
            let (o, s) = (obj.to_str().unwrap(), so.to_str().unwrap());
            common::run(&lld, &["-shared", o, "-o", s], None);
            let theirs = code_object::read(&std::fs::read(&so).unwrap()).unwrap();
            let ours = code_object::read(&c.code_object()).unwrap();
            let (a, b) = (
                ours.kernel(&c.kernel.name).unwrap(),
                theirs.kernel(&c.kernel.name).unwrap(),
            );
            assert_eq!(a.code, b.code, "{} {t} {wave}: code", llvm.label());
            let (mut da, mut db) = (a.descriptor, b.descriptor);
            da.kernel_code_entry_byte_offset = 0;
            db.kernel_code_entry_byte_offset = 0;
            assert_eq!(
                da.to_bytes(),
                db.to_bytes(),
                "{} {t} {wave}: descriptor",
                llvm.label()
            );
            assert_eq!(ours.metadata, theirs.metadata, "{t} {wave}: metadata");
            let _ = std::fs::remove_dir_all(&dir);
            checked += 1;
        }
    }
    println!("{checked} canaries match llvm-mc + ld.lld");
}
