//! Drift check of the hand-kept HIP/HSA declarations (`devices/src/hip/sys.rs`) against
//! the real headers: Debian's `bindgen` program regenerates exactly the functions, constants and
//! structs sys.rs declares from Debian's `libamdhip64-dev` (hip_runtime_api.h) and
//! `libhsa-runtime-dev` (hsa.h, hsa_ext_amd.h), and every signature, constant value and struct
//! field is compared with ours after resolving type aliases on each side. Any difference fails.
//!
//! bindgen is an oracle program here like llvm-mc, not a crate we build: building the bindgen
//! crate (with clang-sys and regex) cost the test suite ~48 CPU-seconds of compilation.
//! Needs the headers, the `bindgen` program and libclang (Debian `bindgen`, `libclang1-19`,
//! `libclang-common-19-dev`): skips with a reason when missing, fails under `CI=true`.

use ds_test_support::{require, temp_dir, tool, Cmd};

use std::collections::BTreeMap;
use std::path::Path;
use syn::{Expr, ForeignItem, Item, Lit, ReturnType, Type};

const SYS_RS: &str = include_str!("../../src/hip/sys.rs");
const HEADERS: [&str; 3] = ["hip/hip_runtime_api.h", "hsa/hsa.h", "hsa/hsa_ext_amd.h"];
/// `HIP_LAUNCH_PARAM_*` are pointer-valued macros (`((void*)0x01)`) that bindgen does not
/// translate; the wrapper header turns each into an integer constant `DS_<name>` clang evaluates.
const POINTER_MACROS: [&str; 3] = [
    "HIP_LAUNCH_PARAM_BUFFER_POINTER",
    "HIP_LAUNCH_PARAM_BUFFER_SIZE",
    "HIP_LAUNCH_PARAM_END",
];

/// One side's declarations.
#[derive(Default)]
struct Decls {
    /// Type aliases (including `pub use X as Y`).
    aliases: BTreeMap<String, Type>,
    /// Functions: name -> (parameter types, return type).
    fns: BTreeMap<String, (Vec<Type>, Option<Type>)>,
    /// Constants: name -> (type, value).
    consts: BTreeMap<String, (Type, u64)>,
    /// Structs: name -> field (name, type) list.
    structs: BTreeMap<String, Vec<(String, Type)>>,
}

fn int_value(e: &Expr) -> u64 {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_parse().expect("integer literal"),
            other => panic!("not an integer constant: {}", quote_lit(other)),
        },
        Expr::Cast(c) => int_value(&c.expr),
        Expr::Paren(p) => int_value(&p.expr),
        Expr::Group(g) => int_value(&g.expr),
        _ => panic!("constant is not a literal"),
    }
}

fn quote_lit(l: &Lit) -> String {
    match l {
        Lit::Str(s) => s.value(),
        _ => "a non-integer literal".into(),
    }
}

fn parse(src: &str) -> Decls {
    let file = syn::parse_file(src).expect("parses as Rust");
    let mut d = Decls::default();
    for item in file.items {
        match item {
            Item::Type(t) => match *t.ty {
                Type::BareFn(f) => {
                    let params = f.inputs.iter().map(|a| a.ty.clone()).collect();
                    let ret = match f.output {
                        ReturnType::Default => None,
                        ReturnType::Type(_, t) => Some(*t),
                    };
                    d.fns.insert(t.ident.to_string(), (params, ret));
                }
                ty => {
                    d.aliases.insert(t.ident.to_string(), ty);
                }
            },
            Item::Use(u) => {
                // bindgen: `pub use self::hsa_status_t as hsa_status_t;` style re-exports.
                if let syn::UseTree::Path(p) = &u.tree {
                    if let syn::UseTree::Rename(r) = &*p.tree {
                        let target: Type = syn::parse_str(&r.ident.to_string()).unwrap();
                        d.aliases.insert(r.rename.to_string(), target);
                    }
                }
            }
            Item::Const(c) => {
                d.consts
                    .insert(c.ident.to_string(), (*c.ty, int_value(&c.expr)));
            }
            Item::Struct(s) => {
                let fields = s
                    .fields
                    .iter()
                    .map(|f| {
                        (
                            f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default(),
                            f.ty.clone(),
                        )
                    })
                    .collect();
                d.structs.insert(s.ident.to_string(), fields);
            }
            Item::ForeignMod(m) => {
                for fi in m.items {
                    if let ForeignItem::Fn(f) = fi {
                        let params = f
                            .sig
                            .inputs
                            .iter()
                            .map(|a| match a {
                                syn::FnArg::Typed(p) => (*p.ty).clone(),
                                syn::FnArg::Receiver(_) => panic!("no receivers in C"),
                            })
                            .collect();
                        let ret = match f.sig.output {
                            ReturnType::Default => None,
                            ReturnType::Type(_, t) => Some(*t),
                        };
                        d.fns.insert(f.sig.ident.to_string(), (params, ret));
                    }
                }
            }
            _ => {}
        }
    }
    d
}

/// A type with aliases resolved and paths reduced to primitive names, e.g. `*mut ihipModule_t`,
/// `u32`, `Option<unsafe extern "C" fn(hsa_agent_s, *mut c_void) -> u32>`.
fn canon(t: &Type, d: &Decls) -> String {
    match t {
        Type::Path(p) => {
            let seg = p.path.segments.last().expect("a path has a segment");
            let name = seg.ident.to_string();
            if let syn::PathArguments::AngleBracketed(a) = &seg.arguments {
                let args: Vec<String> = a
                    .args
                    .iter()
                    .map(|g| match g {
                        syn::GenericArgument::Type(t) => canon(t, d),
                        _ => panic!("unexpected generic argument"),
                    })
                    .collect();
                return format!("{name}<{}>", args.join(", "));
            }
            if let Some(target) = d.aliases.get(&name) {
                return canon(target, d);
            }
            match name.as_str() {
                "c_uint" | "u32" => "u32",
                "c_int" | "i32" => "i32",
                "c_char" | "i8" => "i8",
                "c_ulong" | "u64" => "u64",
                "c_void" => "c_void",
                "usize" => "usize",
                other => return other.to_string(),
            }
            .to_string()
        }
        Type::Ptr(p) => format!(
            "*{} {}",
            if p.mutability.is_some() {
                "mut"
            } else {
                "const"
            },
            canon(&p.elem, d)
        ),
        Type::BareFn(f) => {
            let params: Vec<String> = f.inputs.iter().map(|a| canon(&a.ty, d)).collect();
            let ret = match &f.output {
                ReturnType::Default => "()".to_string(),
                ReturnType::Type(_, t) => canon(t, d),
            };
            let abi = f
                .abi
                .as_ref()
                .and_then(|a| a.name.as_ref())
                .map(|n| n.value())
                .unwrap_or_default();
            format!(
                "{}extern \"{abi}\" fn({}) -> {ret}",
                if f.unsafety.is_some() { "unsafe " } else { "" },
                params.join(", ")
            )
        }
        Type::Array(a) => {
            let Expr::Lit(len) = &a.len else {
                panic!("array length is not a literal")
            };
            let Lit::Int(len) = &len.lit else {
                panic!("array length is not an integer")
            };
            format!("[{}; {}]", canon(&a.elem, d), len.base10_digits())
        }
        Type::Tuple(t) if t.elems.is_empty() => "()".into(),
        Type::Paren(p) => canon(&p.elem, d),
        Type::Group(g) => canon(&g.elem, d),
        _ => panic!("unexpected type form in declarations"),
    }
}

fn ret_canon(r: &Option<Type>, d: &Decls) -> String {
    r.as_ref()
        .map(|t| canon(t, d))
        .unwrap_or_else(|| "()".into())
}

/// Where bindgen finds libclang: `LIBCLANG_PATH` if set, else Debian's libclang-19, else the
/// library directories clang-sys searches.
fn libclang_dir() -> Option<String> {
    let env_dir = std::env::var("LIBCLANG_PATH").ok();
    let dirs = [
        "/usr/lib/llvm-19/lib",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib",
    ];
    env_dir.into_iter().chain(dirs.map(String::from)).find(|d| {
        std::fs::read_dir(d).is_ok_and(|rd| {
            rd.flatten().any(|e| {
                e.file_name().to_string_lossy().starts_with("libclang")
                    && e.file_name().to_string_lossy().contains(".so")
            })
        })
    })
}

#[test]
fn hand_kept_hip_and_hsa_declarations_match_the_rocm_headers() {
    let headers_found = HEADERS
        .iter()
        .all(|h| Path::new("/usr/include").join(h).exists());
    if !require(
        headers_found,
        "the ROCm headers are missing: install Debian's libamdhip64-dev (brings libhsa-runtime-dev)",
    ) {
        return;
    }
    if !tool("bindgen", "install Debian's bindgen") {
        return;
    }
    let libclang = libclang_dir();
    if !require(
        libclang.is_some(),
        "libclang is missing: install Debian's libclang1-19 and libclang-common-19-dev (or set LIBCLANG_PATH)",
    ) {
        return;
    }
    let libclang = libclang.expect("found above");

    let ours = parse(SYS_RS);
    assert!(
        ours.fns.len() >= 25,
        "sys.rs declares {} functions: the parser lost some",
        ours.fns.len()
    );

    let mut wrapper = String::from("#include <stdint.h>\n");
    for h in HEADERS {
        wrapper.push_str(&format!("#include <{h}>\n"));
    }
    for m in POINTER_MACROS {
        wrapper.push_str(&format!(
            "static const uintptr_t DS_{m} = (uintptr_t)({m});\n"
        ));
    }
    let dir = temp_dir("bindgen-drift");
    let header = dir.join("ds_wrapper.h");
    std::fs::write(&header, &wrapper).expect("wrapper header written");
    let mut args: Vec<String> = vec![
        header.display().to_string(),
        "--default-enum-style=consts".into(),
        "--no-prepend-enum-name".into(),
        "--no-layout-tests".into(),
        "--no-derive-debug".into(),
        "--no-derive-copy".into(),
        // size_t is usize, as newer bindgen releases print it by default.
        "--size_t-is-usize".into(),
    ];
    for f in ours.fns.keys() {
        args.extend(["--allowlist-function".into(), format!("^{f}$")]);
    }
    for c in ours.consts.keys() {
        let name = if POINTER_MACROS.contains(&c.as_str()) {
            format!("DS_{c}")
        } else {
            c.clone()
        };
        args.extend(["--allowlist-var".into(), format!("^{name}$")]);
    }
    for t in ours.structs.keys().chain(ours.aliases.keys()) {
        args.extend(["--allowlist-type".into(), format!("^{t}$")]);
    }
    args.extend(["--", "-D__HIP_PLATFORM_AMD__", "-I/usr/include", "-x", "c"].map(String::from));
    let out = Cmd::new("bindgen")
        .args(&args)
        .env("LIBCLANG_PATH", &libclang)
        .within(std::time::Duration::from_secs(120))
        .output();
    assert!(
        out.status.success(),
        "bindgen does not read the ROCm headers: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let generated = String::from_utf8(out.stdout).expect("bindgen writes UTF-8");
    let theirs = parse(&generated);

    let mut drift = Vec::new();
    for (name, (params, ret)) in &ours.fns {
        let Some((tparams, tret)) = theirs.fns.get(name) else {
            drift.push(format!("fn {name}: not in the headers"));
            continue;
        };
        let o: Vec<String> = params.iter().map(|t| canon(t, &ours)).collect();
        let t: Vec<String> = tparams.iter().map(|t| canon(t, &theirs)).collect();
        let (or, tr) = (ret_canon(ret, &ours), ret_canon(tret, &theirs));
        if o != t || or != tr {
            drift.push(format!(
                "fn {name}: ours ({}) -> {or}, header ({}) -> {tr}",
                o.join(", "),
                t.join(", ")
            ));
        }
    }
    for (name, (ty, value)) in &ours.consts {
        let pointer_macro = POINTER_MACROS.contains(&name.as_str());
        let key = if pointer_macro {
            format!("DS_{name}")
        } else {
            name.clone()
        };
        let Some((tty, tvalue)) = theirs.consts.get(&key) else {
            drift.push(format!("const {name}: not in the headers"));
            continue;
        };
        if value != tvalue {
            drift.push(format!("const {name}: ours {value:#x}, header {tvalue:#x}"));
        }
        let (o, t) = (canon(ty, &ours), canon(tty, &theirs));
        // Pointer macros are integers on our side by design; their width is checked instead.
        let types_agree = if pointer_macro {
            o == "usize" && (t == "usize" || t == "u64")
        } else {
            o == t
        };
        if !types_agree {
            drift.push(format!("const {name}: ours is {o}, header is {t}"));
        }
    }
    for (name, fields) in &ours.structs {
        let ours_f: Vec<(String, String)> = fields
            .iter()
            .map(|(n, t)| (n.clone(), canon(t, &ours)))
            .collect();
        match theirs.structs.get(name) {
            None => drift.push(format!("struct {name}: not in the headers")),
            Some(tf) => {
                let theirs_f: Vec<(String, String)> = tf
                    .iter()
                    .map(|(n, t)| (n.clone(), canon(t, &theirs)))
                    .collect();
                if ours_f != theirs_f {
                    drift.push(format!(
                        "struct {name}: ours {ours_f:?}, header {theirs_f:?}"
                    ));
                }
            }
        }
    }
    println!(
        "compared {} functions, {} constants, {} structs with the headers",
        ours.fns.len(),
        ours.consts.len(),
        ours.structs.len()
    );
    assert!(
        drift.is_empty(),
        "sys.rs drifted from the ROCm headers:\n  {}\n--- bindgen output ---\n{generated}",
        drift.join("\n  ")
    );
}

#[test]
fn the_comparison_catches_a_changed_signature_and_a_changed_value() {
    // The checker itself: a wrong parameter type and a wrong constant must differ after canon().
    let a = parse("pub type t = ::std::os::raw::c_uint; pub type f = unsafe extern \"C\" fn(x: *mut t) -> t; pub const K: t = 600;");
    let b =
        parse("pub type f = unsafe extern \"C\" fn(y: *mut i32) -> u32; pub const K: u32 = 601;");
    let (pa, _) = &a.fns["f"];
    let (pb, _) = &b.fns["f"];
    assert_eq!(canon(&pa[0], &a), "*mut u32");
    assert_ne!(canon(&pa[0], &a), canon(&pb[0], &b));
    assert_ne!(a.consts["K"].1, b.consts["K"].1);
}
