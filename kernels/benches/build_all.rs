//! Benchmark: build every runnable op's kernel and pack them into one code object, against
//! `llvm-mc-19` + `ld.lld-19 -shared` assembling and linking the same kernels from their
//! assembly form (`code_object::assembly`). Target: ours >= 50x faster. Prints its figures;
//! `cargo bench -p ds-kernels`.

use ds_isa::ds::{runnable_ops, OffsetForm};
use ds_isa::target::DEFAULT;
use ds_kernels::code_object;
use ds_kernels::generator::generate_for;
use ds_reference::wave::{FpMode, Variant};
use std::process::Command;
use std::time::{Duration, Instant};

fn variants() -> Vec<Variant> {
    runnable_ops(DEFAULT.generation)
        .map(|op| {
            let (offset0, offset1) = match op.info().offset {
                OffsetForm::Single => (16, 1),
                OffsetForm::Pair | OffsetForm::Stride64 => (1, 2),
                OffsetForm::Swizzle => (0x1b, 0x80),
                OffsetForm::NoOffset => (0, 0),
            };
            Variant {
                op,
                offset0,
                offset1,
                lds_size: ds_kernels::DEFAULT_LDS_SIZE,
                mode: FpMode::default(),
                wave: ds_reference::wave::WaveSize::Wave32,
                regs: None,
                acc: false,
            }
        })
        .collect()
}

fn ours(variants: &[Variant]) -> Vec<u8> {
    let kernels: Vec<_> = variants
        .iter()
        .map(|v| generate_for(DEFAULT, v).expect("runnable"))
        .collect();
    code_object::write(DEFAULT, &kernels)
}

/// Median of `runs` timings of `f`.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn main() {
    let variants = variants();
    let bytes = ours(&variants);
    let size = bytes.len();
    let ours_time = median(201, || {
        std::hint::black_box(ours(std::hint::black_box(&variants)));
    });
    println!(
        "ds-kernels: {} kernels + code object ({size} bytes): median {:.3} ms",
        variants.len(),
        ours_time.as_secs_f64() * 1e3
    );

    let tools_ok = ["llvm-mc-19", "ld.lld-19"].iter().all(|t| {
        Command::new(t)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !tools_ok {
        println!("llvm-mc-19 / ld.lld-19 not found: no comparison (install llvm-19 and lld-19)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("ds-kernels-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (asm, obj, so) = (dir.join("k.s"), dir.join("k.o"), dir.join("k.so"));
    let kernels: Vec<_> = variants
        .iter()
        .map(|v| generate_for(DEFAULT, v).unwrap())
        .collect();
    std::fs::write(&asm, code_object::assembly(DEFAULT, &kernels)).unwrap();
    let llvm_time = median(11, || {
        let mc = Command::new("llvm-mc-19")
            .args(["-triple=amdgcn-amd-amdhsa", "-filetype=obj"])
            .arg(format!("-mcpu={DEFAULT}"))
            .arg(&asm)
            .arg("-o")
            .arg(&obj)
            .status()
            .unwrap();
        assert!(mc.success());
        let ld = Command::new("ld.lld-19")
            .arg("-shared")
            .arg(&obj)
            .arg("-o")
            .arg(&so)
            .status()
            .unwrap();
        assert!(ld.success());
    });
    let _ = std::fs::remove_dir_all(&dir);
    let ratio = llvm_time.as_secs_f64() / ours_time.as_secs_f64();
    println!(
        "llvm-mc-19 + ld.lld-19 on the same kernels: median {:.3} ms",
        llvm_time.as_secs_f64() * 1e3
    );
    println!(
        "ratio: ours is {ratio:.0}x faster (target >= 50x: {})",
        if ratio >= 50.0 { "met" } else { "NOT met" }
    );
}
