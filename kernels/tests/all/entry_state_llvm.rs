//! The kernels' entry state against LLVM's choice: `llc-19` and `llc-22` compile a kernel that
//! asks for what the harness's kernels ask for (a kernarg segment pointer, workgroup id x,
//! work-item id x; every other input switched off with the `amdgpu-no-*` attributes) and stores
//! `llvm.amdgcn.workgroup.id.x`, for every target code objects are built for (processors and
//! generic targets) in each wave size it runs. And where the work-item ids arrive: a kernel storing
//! `llvm.amdgcn.workitem.id.y` reads it from v0 \[19:10\] (`v_bfe_u32 vN, v0, 10, 10`) on the
//! targets whose `packed_workitem_ids` column says so and from v1 on the others.
//! The user SGPR count LLVM declares (`.amdhsa_user_sgpr_count`), the register its code reads the
//! workgroup id from, and the kernarg pointer's SGPRs must equal what the harness's descriptor
//! declares and its kernel reads (LLVM pads the user SGPRs of gfx1100/gfx1102 in wave32 to 15,
//! `FeatureUserSGPRInit16Bug`, and reads gfx12's id from `ttmp9`, `FeatureArchitectedSGPRs`).
//! Where workgroups may come in clusters (gfx1250, `FeatureClusters`) LLVM computes the id from
//! `ttmp9`, `ttmp6` and `hwreg(HW_REG_IB_STS2, 6, 4)`: the harness's kernel must compute it with
//! the same instructions, after the same prologue (`s_setreg_imm32_b32` of MODE), and read it
//! from the same SGPR. gfx1250 runs wave32 only: `llc-22 -mattr=+wavefrontsize64` emits no
//! kernel for it, and the kernels refuse wave64 (`ds_kernels::check_wave`).
//! So must the padding after the last kernel: `llc` aligns the code's end to the instruction-cache
//! line and fills whole lines after it (`.p2alignl`, `.fill`: `s_code_end` on GFX10+, `s_nop 0`
//! on CDNA 2 and later, nothing on older gfx9), and the code object our writer makes of the
//! kernel must end the same way.

use crate::common;

use ds_isa::ds::DsOp;
use ds_isa::inst::{Inst, Operand, SmemOp, Sop2Op};
use ds_isa::target::Target;
use ds_kernels::entry::KernelEntry;
use ds_kernels::generator::{generate_for, Kernel};
use ds_reference::wave::{FpMode, Variant, WaveSize};
use std::collections::BTreeMap;
use std::process::Command;

const KERNEL: &str = r#"
declare i32 @llvm.amdgcn.workgroup.id.x()
define amdgpu_kernel void @k(ptr addrspace(1) %out) #0 {
  %id = call i32 @llvm.amdgcn.workgroup.id.x()
  store i32 %id, ptr addrspace(1) %out
  ret void
}
attributes #0 = { "amdgpu-no-dispatch-ptr" "amdgpu-no-queue-ptr" "amdgpu-no-implicitarg-ptr"
  "amdgpu-no-dispatch-id" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z"
  "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "amdgpu-no-lds-kernel-id"
  "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-multigrid-sync-arg"
  "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-flat-scratch-init"
  "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" }
"#;

/// Every target code objects are built for: the processors, then the generic targets (which
/// must run on each processor they cover: gfx11-generic pads like the init-16 processors).
fn targets() -> Vec<&'static Target> {
    ds_isa::target::all()
        .filter(|t| ds_kernels::check_target(t).is_ok())
        .collect()
}

/// The module flag that asks for code object version 6.
const CODE_OBJECT_V6: &str =
    "!llvm.module.flags = !{!0}\n!0 = !{i32 1, !\"amdhsa_code_object_version\", i32 600}\n";

/// What LLVM chose for one target and wave size.
#[derive(Debug, PartialEq, Eq)]
struct Choice {
    user_sgprs: u32,
    workgroup_id: String,
    kernarg: String,
    /// The instructions before any input is read (gfx1250's MODE write).
    prologue: Vec<String>,
    /// The scalar instructions that compute the workgroup id from what the hardware delivers
    /// (where workgroups may come in clusters: from ttmp9, ttmp6 and IB_STS2), in order.
    computed: Vec<String>,
    /// The padding after the last kernel: the code is aligned to `1 << .0` bytes with the word
    /// `.2`, then `.1` more words of it (`llc`'s `.p2alignl` and `.fill`); `None`: none.
    code_end: Option<(u32, u32, u32)>,
}

/// A scalar instruction that computes the workgroup id (not the kernarg load, a wait, a
/// scheduling hint, the MODE prologue, nor what LLVM ends a kernel with: `s_nop`, the
/// deallocation message, `s_endpgm`).
fn computes(line: &str) -> bool {
    let l = line.trim_start();
    l.starts_with("s_")
        && ![
            "s_load",
            "s_wait",
            "s_delay_alu",
            "s_setreg",
            "s_nop",
            "s_sendmsg",
            "s_endpgm",
        ]
        .iter()
        .any(|p| l.starts_with(p))
}

/// `llc` run on `ir` for `t` in `wave` (code object version 6 asked for on a generic target,
/// which needs it: LLVM 19 defaults to 5).
fn llc(llc: &str, t: &Target, wave: WaveSize, ir: &str) -> std::process::Output {
    Command::new(llc)
        .args([
            "-mtriple=amdgcn-amd-amdhsa",
            &format!("-mcpu={t}"),
            &format!("-mattr=+wavefrontsize{}", wave.lanes()),
            "-o",
            "-",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            let mut stdin = c.stdin.take().unwrap();
            stdin.write_all(ir.as_bytes())?;
            if t.is_generic() {
                stdin.write_all(CODE_OBJECT_V6.as_bytes())?;
            }
            drop(stdin);
            c.wait_with_output()
        })
        .unwrap_or_else(|e| panic!("{llc} runs: {e}"))
}

/// Compiles [`KERNEL`] with `llc` for `t` in `wave`; `None` when this llc does not know `t`.
fn llc_choice(tool: &str, t: &Target, wave: WaveSize) -> Option<Choice> {
    let out = llc(tool, t, wave, KERNEL);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("not a recognized processor") {
        return None;
    }
    assert!(out.status.success(), "{tool} -mcpu={t}: {stderr}");
    let asm = String::from_utf8(out.stdout).unwrap();
    Some(parse(&asm, &format!("{tool} {t} {wave}")))
}

/// The declared user SGPR count, the one scalar register (an SGPR or ttmp outside `s[..]`
/// tuples) the code reads besides the kernarg pointer, and the kernarg pointer's SGPRs (the
/// base of the first `s_load`), from `llc`'s assembly of [`KERNEL`].
fn parse(asm: &str, what: &str) -> Choice {
    let field = |name: &str| -> u32 {
        let line = asm
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("{what}: no {name} in\n{asm}"));
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    assert_eq!(field(".amdhsa_user_sgpr_kernarg_segment_ptr"), 1, "{what}");
    assert_eq!(field(".amdhsa_system_sgpr_workgroup_id_x"), 1, "{what}");
    assert_eq!(field(".amdhsa_system_vgpr_workitem_id"), 0, "{what}");
    let code: Vec<&str> = asm
        .lines()
        .skip_while(|l| !l.starts_with("k:"))
        .take_while(|l| !l.contains("s_endpgm"))
        .filter(|l| l.starts_with('\t') && !l.trim_start().starts_with(';'))
        .collect();
    let load = code
        .iter()
        .find(|l| l.trim_start().starts_with("s_load"))
        .unwrap_or_else(|| panic!("{what}: no s_load in\n{asm}"));
    let kernarg = load.split(',').nth(1).unwrap().trim().to_string();
    let text = |l: &&str| l.trim().to_string();
    let prologue: Vec<String> = code
        .iter()
        .filter(|l| l.trim_start().starts_with("s_setreg"))
        .map(text)
        .collect();
    let computed: Vec<String> = code.iter().filter(|l| computes(l)).map(text).collect();
    let mut regs: Vec<String> = Vec::new();
    // The one register the rest reads the id from (the computed one where it is computed).
    for line in code
        .iter()
        .filter(|l| !computes(l) && !l.contains("s_setreg"))
    {
        for token in line.split([' ', ',', '\t']) {
            let scalar = ["s", "ttmp"].iter().any(|p| {
                token
                    .strip_prefix(p)
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            });
            if scalar && !regs.iter().any(|r| r == token) {
                regs.push(token.to_string());
            }
        }
    }
    assert_eq!(
        regs.len(),
        1,
        "{what}: one scalar register besides the kernarg pointer expected, found {regs:?} in\n{}",
        code.join("\n")
    );
    // LLVM enables the private segment buffer (4 user SGPRs, s[0:3]) on targets without flat
    // scratch for every HSA kernel (gfx10); the harness's kernels use no scratch and do not ask
    // for it, so LLVM's layout is compared with those 4 SGPRs taken out (every later user and
    // system SGPR moves down by 4, as AMDGPUUsage's "Initial Kernel Execution State" orders them).
    let psb = asm
        .lines()
        .any(|l| l.trim() == ".amdhsa_user_sgpr_private_segment_buffer 1");
    let down = |r: String| -> String {
        if !psb {
            return r;
        }
        let shift = |n: &str| (n.parse::<u32>().unwrap() - 4).to_string();
        if let Some(pair) = r.strip_prefix("s[").and_then(|x| x.strip_suffix(']')) {
            let (a, b) = pair.split_once(':').unwrap();
            format!("s[{}:{}]", shift(a), shift(b))
        } else if let Some(n) = r.strip_prefix('s') {
            format!("s{}", shift(n))
        } else {
            r
        }
    };
    Choice {
        user_sgprs: field(".amdhsa_user_sgpr_count") - if psb { 4 } else { 0 },
        workgroup_id: down(regs.remove(0)),
        kernarg: down(kernarg),
        prologue,
        computed,
        code_end: code_end_of(asm, what),
    }
}

/// `llc`'s padding after the last kernel: `.p2alignl N, W` then `.fill C, 4, W` (numbers in
/// decimal or hex), as `(N, C, W)`; `None` when it writes neither.
fn code_end_of(asm: &str, what: &str) -> Option<(u32, u32, u32)> {
    let num = |t: &str| -> u32 {
        let t = t.trim();
        match t.strip_prefix("0x") {
            Some(h) => u32::from_str_radix(h, 16),
            None => t.parse(),
        }
        .unwrap_or_else(|e| panic!("{what}: `{t}` in llc's padding: {e}"))
    };
    let args = |directive: &str| -> Option<Vec<u32>> {
        let line = asm
            .lines()
            .find(|l| l.trim_start().starts_with(directive))?;
        Some(
            line.trim_start()[directive.len()..]
                .split(',')
                .map(num)
                .collect(),
        )
    };
    match (args(".p2alignl"), args(".fill")) {
        (None, None) => None,
        (Some(align), Some(fill)) => {
            assert!(
                align.len() == 2 && fill.len() == 3 && fill[1] == 4 && fill[2] == align[1],
                "{what}: llc pads as {align:?} then {fill:?}"
            );
            Some((align[0], fill[0], align[1]))
        }
        other => panic!(
            "{what}: llc aligns the end without filling it, or fills it unaligned: {other:?}"
        ),
    }
}

/// Our code object's padding after its one kernel `k` for `t`, in [`Choice::code_end`]'s form:
/// the bytes the writer puts after the kernel's code (the `.text` section's rest), read back
/// as LLVM's rule (the alignment is the generation's cache line, the rest whole words of one
/// padding word).
fn our_code_end(t: &Target, k: &Kernel) -> Option<(u32, u32, u32)> {
    use object::{Object, ObjectSection};
    let co = ds_kernels::code_object::write(t, std::slice::from_ref(k));
    let file = object::File::parse(&*co).expect("our code object parses");
    let text = file
        .section_by_name(".text")
        .expect("a .text section")
        .data()
        .expect("its bytes")
        .to_vec();
    assert_eq!(
        &text[..k.code.len()],
        &k.code[..],
        "{t}: the kernel opens .text"
    );
    let tail = &text[k.code.len()..];
    if tail.is_empty() {
        assert_eq!(ds_kernels::code_object::code_end(t), None, "{t}");
        return None;
    }
    let words: Vec<u32> = tail
        .chunks(4)
        .map(|w| u32::from_le_bytes(w.try_into().expect("whole words")))
        .collect();
    assert!(
        words.iter().all(|&w| w == words[0]),
        "{t}: one padding word"
    );
    let end = ds_kernels::code_object::code_end(t).expect("padding only where code_end says");
    let to_line = (k.code.len().next_multiple_of(end.line_bytes as usize) - k.code.len()) / 4;
    Some((
        end.line_bytes.trailing_zeros(),
        (words.len() - to_line) as u32,
        words[0],
    ))
}

/// The harness's choice for `t` in `wave`: what its kernel's descriptor declares, the register
/// its `s_mul_i32` (case * LDS size) reads the workgroup id from, and its kernarg loads' base.
fn harness_choice(t: &Target, wave: WaveSize) -> Choice {
    let k: Kernel = generate_for(
        t,
        &Variant {
            op: DsOp::AddRtnU32,
            offset0: 0,
            offset1: 0,
            lds_size: 512,
            mode: FpMode::default(),
            wave,
            regs: None,
            acc: false,
        },
    )
    .unwrap();
    // (Past the prologue and the id's computation, which multiply too.)
    let start = ds_kernels::template::of(t.generation)
        .unwrap()
        .prologue()
        .len()
        + KernelEntry::of(t, wave).workgroup_id_insts().len();
    let id = k.insts[start..]
        .iter()
        .find_map(|(i, _)| match i {
            Inst::Sop2 {
                op: Sop2Op::MulI32,
                src0,
                ..
            } => Some(*src0),
            _ => None,
        })
        .expect("the template multiplies the case by the LDS size");
    let base = k
        .insts
        .iter()
        .find_map(|(i, _)| match i {
            Inst::Smem {
                op: SmemOp::LoadB256,
                sbase,
                ..
            } => Some(*sbase),
            _ => None,
        })
        .expect("the template loads the kernarg addresses");
    // The entry-state table says the same as the kernel it drives, which starts with the
    // template's prologue and the entry state's computation of the id.
    let e = KernelEntry::of(t, wave);
    assert_eq!(Operand::Sgpr(e.kernarg), Operand::Sgpr(base), "{t} {wave}");
    assert_eq!(e.workgroup_id_reg(), id, "{t} {wave}");
    let gen = t.generation;
    let texts = |insts: Vec<(Inst, &'static str)>| -> Vec<String> {
        insts.iter().map(|(i, _)| i.text(gen).to_string()).collect()
    };
    let prologue = texts(ds_kernels::template::of(gen).unwrap().prologue());
    let computed = texts(e.workgroup_id_insts());
    let first: Vec<String> = k.insts[..prologue.len() + computed.len()]
        .iter()
        .map(|(i, _)| i.text(gen).to_string())
        .collect();
    assert_eq!(
        first,
        [prologue.clone(), computed.clone()].concat(),
        "{t} {wave}"
    );
    Choice {
        user_sgprs: k.descriptor.user_sgpr_count(),
        workgroup_id: id.to_string(),
        kernarg: format!("s[{base}:{}]", base + 1),
        prologue,
        computed,
        code_end: our_code_end(t, &k),
    }
}

#[test]
fn the_entry_state_is_llvms_for_every_target_and_wave_size() {
    let mut covered: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut ran = false;
    let mut wrong = Vec::new();
    for tool in ["llc-19", "llc-22"] {
        if Command::new(tool).arg("--version").output().is_err() {
            common::missing(tool, &format!("the Debian package llvm-{}", &tool[4..]));
            continue;
        }
        ran = true;
        for t in targets() {
            for wave in ds_kernels::wave_sizes(t) {
                let Some(theirs) = llc_choice(tool, t, wave) else {
                    continue;
                };
                let ours = harness_choice(t, wave);
                if ours != theirs {
                    wrong.push(format!(
                        "{t} {wave}: the harness has {ours:?}, {tool} {theirs:?}"
                    ));
                }
                covered.entry(t.name).or_default().push(tool);
            }
        }
    }
    if !ran {
        return;
    }
    assert!(
        wrong.is_empty(),
        "the entry state differs from LLVM's:\n{}",
        wrong.join("\n")
    );
    for t in targets() {
        assert!(
            covered.contains_key(t.name),
            "{t}: no installed llc knows it, so its entry state is unchecked"
        );
    }
}

/// A wave size a target's row leaves out is one llc builds no kernel in (gfx9's wave32,
/// gfx1250's wave64: `amdhsa.kernels: []`), and the kernels refuse it saying so.
#[test]
fn llc_builds_no_kernel_in_a_wave_size_the_table_leaves_out() {
    let Ok(out) = Command::new("llc-22").arg("--version").output() else {
        common::missing("llc-22", "the Debian package llvm-22");
        return;
    };
    assert!(out.status.success());
    let mut refused = Vec::new();
    for t in targets().into_iter().filter(|t| !t.is_generic()) {
        for wave in WaveSize::ALL {
            if ds_kernels::wave_sizes(t).contains(&wave) {
                continue;
            }
            let asm = llc("llc-22", t, wave, KERNEL);
            let text = String::from_utf8_lossy(&asm.stdout);
            assert!(
                text.contains("amdhsa.kernels:  []") && !text.lines().any(|l| l.starts_with("k:")),
                "llc-22 {t} {wave} builds a kernel:\n{text}"
            );
            let e = ds_kernels::check_wave(t, wave).unwrap_err();
            assert!(
                e.contains("llc-22 builds no") && e.contains(&format!("{wave}")),
                "{e}"
            );
            refused.push(format!("{t} {wave}"));
        }
    }
    assert!(
        refused.iter().any(|r| r.starts_with("gfx1250 wave64")),
        "{refused:?}"
    );
    println!(
        "llc-22 builds no kernel, the kernels refuse: {}",
        refused.join(", ")
    );
}

#[test]
fn the_parser_finds_the_register_and_count_in_llcs_output() {
    let asm = "k:\n\ts_load_b64 s[0:1], s[0:1], 0x0\n\tv_dual_mov_b32 v0, ttmp9 :: v_dual_mov_b32 v1, 0\n\
               \ts_wait_kmcnt 0x0\n\tglobal_store_b32 v1, v0, s[0:1]\n\ts_endpgm\n\
               \t\t.amdhsa_user_sgpr_count 2\n\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1\n\
               \t\t.amdhsa_system_sgpr_workgroup_id_x 1\n\t\t.amdhsa_system_vgpr_workitem_id 0\n";
    assert_eq!(
        parse(asm, "sample"),
        Choice {
            user_sgprs: 2,
            workgroup_id: "ttmp9".into(),
            kernarg: "s[0:1]".into(),
            prologue: vec![],
            computed: vec![],
            code_end: None,
        }
    );
    let padded = format!("{asm}\t.text\n\t.p2alignl 7, 3214868480\n\t.fill 96, 4, 3214868480\n");
    assert_eq!(
        parse(&padded, "sample").code_end,
        Some((7, 96, 0xbf9f_0000))
    );
}

/// Stores work-item id y: packed ids read it from v0 \[19:10\], unpacked ones from v1.
const KERNEL_Y: &str = r#"
declare i32 @llvm.amdgcn.workitem.id.y()
define amdgpu_kernel void @k(ptr addrspace(1) %out) #0 {
  %id = call i32 @llvm.amdgcn.workitem.id.y()
  store i32 %id, ptr addrspace(1) %out
  ret void
}
attributes #0 = { "amdgpu-no-dispatch-ptr" "amdgpu-no-queue-ptr" "amdgpu-no-implicitarg-ptr" }
"#;

#[test]
fn work_item_ids_are_packed_where_the_target_table_says() {
    let mut checked = Vec::new();
    for tool in ["llc-19", "llc-22"] {
        if Command::new(tool).arg("--version").output().is_err() {
            common::missing(tool, &format!("the Debian package llvm-{}", &tool[4..]));
            continue;
        }
        for t in targets().into_iter().filter(|t| !t.is_generic()) {
            let wave = ds_kernels::wave_sizes(t)[0];
            let out = llc(tool, t, wave, KERNEL_Y);
            let stderr = String::from_utf8_lossy(&out.stderr);
            if stderr.contains("not a recognized processor") {
                continue;
            }
            assert!(out.status.success(), "{tool} -mcpu={t}: {stderr}");
            let asm = String::from_utf8(out.stdout).unwrap();
            let code: Vec<&str> = asm
                .lines()
                .skip_while(|l| !l.starts_with("k:"))
                .take_while(|l| !l.contains("s_endpgm"))
                .collect();
            let packed = code
                .iter()
                .any(|l| l.contains("v_bfe_u32") && l.contains(", v0, 10, 10"));
            // Unpacked: the store's data operand (the second) is v1 itself.
            let unpacked = code.iter().any(|l| {
                let l = l.trim_start();
                (l.starts_with("global_store") || l.starts_with("flat_store"))
                    && l.split(',').nth(1).map(str::trim) == Some("v1")
            });
            assert!(
                packed != unpacked,
                "{tool} {t}: cannot tell where work-item id y is read from:\n{}",
                code.join("\n")
            );
            assert_eq!(
                packed,
                t.packed_workitem_ids,
                "{tool} {t}: llc reads work-item id y {}, the target table says packed = {}",
                if packed { "from v0 [19:10]" } else { "from v1" },
                t.packed_workitem_ids
            );
            checked.push(format!("{tool} {t}"));
        }
    }
    println!("work-item ids where the table says: {}", checked.join(", "));
}
