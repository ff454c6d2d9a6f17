//! Finding and loading the HIP runtime (`libamdhip64`) at run time with `libloading`, in the
//! cudarc style: one process-wide `OnceLock`, a fixed list of candidate paths with an environment
//! override, and an error that lists every path tried with the loader's own reason.
//!
//! Search order (docs/design-notes.md, "Devices"): a machine may hold several ROCm releases (Debian's 5.2
//! beside an AMD release under `/opt/rocm-6.x`), and an old runtime cannot load code objects for
//! newer targets (ROCm 5.2 knows no gfx11 target), so the newest installed runtime is tried first:
//! 1. `$DS_HARNESS_HIP_LIB`, an explicit request, tried alone: when it does not load, that is the
//!    answer (an error naming it), never a silent fall back to a system library;
//! 2. the runtimes under `$ROCM_PATH/lib` (an explicit choice of installation), newest first;
//! 3. every other `libamdhip64.so*` file found in `LD_LIBRARY_PATH`'s directories, `/opt/rocm/lib`,
//!    `/opt/rocm-*/lib` and the system library directories, newest first (the version is read
//!    from the name of the file a path resolves to: `libamdhip64.so.6.2.60200` is 6.2.60200;
//!    files whose name carries none come last);
//! 4. `libamdhip64.so`, `.so.7`, `.so.6`, `.so.5` through the dynamic loader's own search
//!    (ld.so.cache), for installations in directories not listed above.
//!
//! Test-only: `DS_HARNESS_HIP_SEARCH=only-env` makes `$DS_HARNESS_HIP_LIB` the whole search of a machine with no other runtime: its failure is then
//! "no HIP runtime", as on a machine without ROCm, not a failed override.

use super::sys;
use std::fmt;
use std::os::raw::{c_char, c_int};
use std::path::PathBuf;
use std::sync::OnceLock;

/// Environment variable naming the HIP library to load first.
pub const ENV_LIB: &str = "DS_HARNESS_HIP_LIB";
/// Environment variable restricting the search: `only-env` tries `$DS_HARNESS_HIP_LIB` alone.
pub const ENV_SEARCH: &str = "DS_HARNESS_HIP_SEARCH";
/// The library file names tried, newest ROCm first.
pub const HIP_NAMES: [&str; 4] = [
    "libamdhip64.so",
    "libamdhip64.so.7",
    "libamdhip64.so.6",
    "libamdhip64.so.5",
];
/// The HSA runtime, used only to name a device's arch.
pub const HSA_NAME: &str = "libhsa-runtime64.so.1";
/// The symbol only the workspace's stand-in runtime (`hip-standin`) exports: it names a stand-in
/// device's arch, because a stand-in device has no KFD node or HSA agent. A real `libamdhip64`
/// never exports it.
pub const STANDIN_ARCH_SYMBOL: &str = "ds_hip_standin_gcn_arch_name";

/// `int ds_hip_standin_gcn_arch_name(int device, char* name, int len)`: writes the target the
/// stand-in runtime reports for the device (as ROCm's agent name: an override applied); returns
/// a `hipError_t`.
pub type StandinArchFn = unsafe extern "C" fn(c_int, *mut c_char, c_int) -> sys::hipError_t;
/// The stand-in's second own symbol: its simulated KFD topology, node by node (the text of a
/// sysfs node's `properties` file), so the chip of a stand-in device is read by the same matcher
/// as a real one's (`arch::match_kfd_node`). A real `libamdhip64` never exports it.
pub const STANDIN_KFD_SYMBOL: &str = "ds_hip_standin_kfd_node";
/// `int ds_hip_standin_kfd_node(int node, char* properties, int len)`: writes node `node`'s
/// properties text and returns [`STANDIN_KFD_NODE`], returns [`STANDIN_KFD_END`] past the last
/// node, or anything else with the reason written when the topology cannot be read.
pub type StandinKfdFn = unsafe extern "C" fn(c_int, *mut c_char, c_int) -> c_int;
/// [`StandinKfdFn`]'s answer: the node's text is written.
pub const STANDIN_KFD_NODE: c_int = 0;
/// [`StandinKfdFn`]'s answer: no such node (the topology has fewer).
pub const STANDIN_KFD_END: c_int = 1;

macro_rules! api {
    ($name:ident; $($f:ident),* $(,)?) => {
        /// Entry points resolved from one loaded library (each field is the C function of that name).
        #[allow(non_snake_case)]
        #[derive(Clone, Copy)]
        pub struct $name {
            $(pub $f: sys::$f,)*
        }

        impl $name {
            /// Resolves every entry point, naming the first one missing.
            fn resolve(lib: &libloading::Library) -> Result<Self, String> {
                Ok(Self {
                    $($f: {
                        // SAFETY: the symbol's type is the declaration in `sys`, checked against the
                        // real header by tests/all/hip_bindgen_drift.rs.
                        let sym = unsafe { lib.get::<sys::$f>(concat!(stringify!($f), "\0").as_bytes()) }
                            .map_err(|e| format!("it has no `{}` ({e})", stringify!($f)))?;
                        *sym
                    },)*
                })
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(stringify!($name))
            }
        }
    };
}

crate::for_each_hip_function!(api!(HipApi;));

api!(HsaApi;
    hsa_init,
    hsa_shut_down,
    hsa_status_string,
    hsa_iterate_agents,
    hsa_agent_get_info
);

/// A loaded HIP runtime: where it came from and its entry points (valid for the process's life:
/// the library is never unloaded).
#[derive(Debug)]
pub struct HipLibrary {
    /// The path or name that loaded, with the file it resolved to when that differs, e.g.
    /// `libamdhip64.so (/usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.21153)`.
    pub path: String,
    /// Its entry points.
    pub api: HipApi,
    /// Present only in the workspace's stand-in runtime: see [`STANDIN_ARCH_SYMBOL`].
    pub standin_arch: Option<StandinArchFn>,
    /// Present only in the workspace's stand-in runtime: see [`STANDIN_KFD_SYMBOL`].
    pub standin_kfd: Option<StandinKfdFn>,
    _lib: libloading::Library,
}

/// A loaded HSA runtime.
#[derive(Debug)]
pub struct HsaLibrary {
    /// The path or name that loaded.
    pub path: String,
    /// Its entry points.
    pub api: HsaApi,
    _lib: libloading::Library,
}

/// No candidate loaded: every path tried and why it failed.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct NotFound {
    /// What was being looked for ("the HIP runtime").
    pub what: &'static str,
    /// The `DS_HARNESS_HIP_LIB` override that was tried alone, when set.
    pub override_lib: Option<String>,
    /// `(path, reason)` per candidate, in the order tried.
    pub tried: Vec<(String, String)>,
}

impl fmt::Display for NotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} could not be loaded; tried {} path(s):",
            self.what,
            self.tried.len()
        )?;
        for (path, why) in &self.tried {
            writeln!(f, "  {path}: {why}")?;
        }
        if let Some(lib) = &self.override_lib {
            return write!(
                f,
                "{ENV_LIB}={lib} was asked for and is tried alone (no system library is \
                 substituted); fix: point {ENV_LIB} at a libamdhip64.so (or the stand-in \
                 libds_hip_standin.so), or unset it to search the system's paths"
            );
        }
        write!(
            f,
            "fix: install ROCm (a release that supports the GPU's target: `ds-harness info` lists \
             each target's first release), or set ROCM_PATH to its prefix, or set \
             {ENV_LIB}=/path/to/libamdhip64.so"
        )
    }
}

/// The candidate paths, in order, for the current environment.
pub fn hip_candidates() -> Vec<String> {
    let env_lib = std::env::var(ENV_LIB).ok().filter(|s| !s.is_empty());
    let only_env = std::env::var(ENV_SEARCH).ok().as_deref() == Some("only-env");
    let rocm = std::env::var("ROCM_PATH").ok().filter(|s| !s.is_empty());
    if env_lib.is_some() || only_env {
        return candidates(env_lib, only_env, rocm, &HIP_NAMES);
    }
    let mut out = Vec::new();
    if let Some(r) = &rocm {
        out.extend(installed(&[PathBuf::from(r).join("lib")], "libamdhip64.so"));
    }
    out.extend(installed(&library_dirs(), "libamdhip64.so"));
    out.extend(candidates(None, false, rocm, &HIP_NAMES));
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    out
}

/// The directories searched for installed runtimes, in order: `LD_LIBRARY_PATH`'s, the ROCm
/// installations under `/opt`, then the system's library directories.
fn library_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var("LD_LIBRARY_PATH")
        .unwrap_or_default()
        .split(':')
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .collect();
    dirs.push(PathBuf::from("/opt/rocm/lib"));
    if let Ok(entries) = std::fs::read_dir("/opt") {
        let mut rocms: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("rocm-"))
            .map(|e| e.path().join("lib"))
            .collect();
        rocms.sort();
        dirs.extend(rocms);
    }
    for d in [
        "/usr/local/lib",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
    ] {
        dirs.push(PathBuf::from(d));
    }
    dirs
}

/// A release version read from a library file's name: `libamdhip64.so.6.2.60200` -> (6, 2,
/// 60200); `None` when the name carries no version after `.so.`.
pub fn file_version(name: &str) -> Option<(u32, u32, u32)> {
    let tail = name.split(".so.").nth(1)?;
    let mut parts = tail.split('.').map(|p| p.parse::<u32>().ok());
    let major = parts.next()??;
    let minor = parts.next().flatten().unwrap_or(0);
    let patch = parts.next().flatten().unwrap_or(0);
    Some((major, minor, patch))
}

/// The files named `stem*` in `dirs` (following symbolic links), one per file they resolve to,
/// newest version first (files without a version last, in directory order).
fn installed(dirs: &[PathBuf], stem: &str) -> Vec<String> {
    /// A library file: its version, the order it was found in, its path.
    type Found = (Option<(u32, u32, u32)>, usize, String);
    let mut found: Vec<Found> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut names: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(stem))
            .map(|e| e.path())
            .collect();
        names.sort();
        for path in names {
            let Ok(real) = std::fs::canonicalize(&path) else {
                continue; // a dangling link
            };
            if !real.is_file() || !seen.insert(real.clone()) {
                continue;
            }
            let version = real
                .file_name()
                .and_then(|n| file_version(&n.to_string_lossy()));
            found.push((version, found.len(), path.to_string_lossy().into_owned()));
        }
    }
    // Newest first; among equals (and the unversioned, last) the order they were found in.
    found.sort_by(|a, b| match (a.0, b.0) {
        (Some(x), Some(y)) => y.cmp(&x).then(a.1.cmp(&b.1)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.1.cmp(&b.1),
    });
    found.into_iter().map(|(_, _, p)| p).collect()
}

fn candidates(
    env_lib: Option<String>,
    only_env: bool,
    rocm: Option<String>,
    names: &[&str],
) -> Vec<String> {
    // The override is tried alone; under only-env it is the whole (simulated) search.
    if let Some(lib) = env_lib {
        return vec![lib];
    }
    if only_env {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    out.extend(names.iter().map(|n| n.to_string()));
    for prefix in rocm.iter().map(String::as_str).chain(["/opt/rocm"]) {
        let dir = format!("{}/lib", prefix.trim_end_matches('/'));
        out.extend(names.iter().map(|n| format!("{dir}/{n}")));
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    out
}

/// The `DS_HARNESS_HIP_LIB` override, when set (non-empty) as an override (not under the
/// test-only `DS_HARNESS_HIP_SEARCH=only-env`, which makes it a stand-in for the system search).
pub fn hip_override() -> Option<String> {
    if std::env::var(ENV_SEARCH).ok().as_deref() == Some("only-env") {
        return None;
    }
    std::env::var(ENV_LIB).ok().filter(|s| !s.is_empty())
}

/// Loads the first candidate that opens and has every entry point.
pub fn load_hip_from(paths: &[String]) -> Result<HipLibrary, NotFound> {
    let mut tried = Vec::new();
    for path in paths {
        // SAFETY: loading a shared library runs its initialisers; the HIP runtime's are what every
        // HIP program runs.
        match unsafe { libloading::Library::new(path) } {
            Err(e) => tried.push((path.clone(), e.to_string())),
            Ok(lib) => match HipApi::resolve(&lib) {
                Err(why) => tried.push((
                    path.clone(),
                    format!("loaded, but {why}: not a usable HIP runtime"),
                )),
                Ok(api) => {
                    // SAFETY: the stand-in exports this symbol with exactly `StandinArchFn`'s type.
                    let standin_arch =
                        unsafe { lib.get::<StandinArchFn>(STANDIN_ARCH_SYMBOL.as_bytes()) }
                            .ok()
                            .map(|s| *s);
                    // SAFETY: the stand-in exports this symbol with exactly `StandinKfdFn`'s type.
                    let standin_kfd =
                        unsafe { lib.get::<StandinKfdFn>(STANDIN_KFD_SYMBOL.as_bytes()) }
                            .ok()
                            .map(|s| *s);
                    return Ok(HipLibrary {
                        path: describe(path, api.hipInit as usize),
                        api,
                        standin_arch,
                        standin_kfd,
                        _lib: lib,
                    });
                }
            },
        }
    }
    Err(NotFound {
        what: "the HIP runtime (libamdhip64)",
        override_lib: None,
        tried,
    })
}

/// `path`, plus the file mapped at `addr` (from /proc/self/maps) when it names something else.
fn describe(path: &str, addr: usize) -> String {
    let file = std::fs::read_to_string("/proc/self/maps")
        .ok()
        .and_then(|maps| {
            maps.lines().find_map(|line| {
                let mut it = line.split_whitespace();
                let (lo, hi) = it.next()?.split_once('-')?;
                let (lo, hi) = (
                    usize::from_str_radix(lo, 16).ok()?,
                    usize::from_str_radix(hi, 16).ok()?,
                );
                let file = it.nth(4)?;
                (lo <= addr && addr < hi && file.starts_with('/')).then(|| file.to_string())
            })
        });
    match file {
        Some(f) if f != path => format!("{path} ({f})"),
        _ => path.to_string(),
    }
}

/// The process's HIP runtime, loaded once from [`hip_candidates`].
pub fn hip() -> Result<&'static HipLibrary, &'static NotFound> {
    static HIP: OnceLock<Result<HipLibrary, NotFound>> = OnceLock::new();
    HIP.get_or_init(|| {
        load_hip_from(&hip_candidates()).map_err(|mut nf| {
            nf.override_lib = hip_override();
            nf
        })
    })
    .as_ref()
}

/// The process's HSA runtime, loaded once: `libhsa-runtime64.so.1` through the loader's search,
/// then under `$ROCM_PATH/lib` and `/opt/rocm/lib`.
pub fn hsa() -> Result<&'static HsaLibrary, &'static NotFound> {
    static HSA: OnceLock<Result<HsaLibrary, NotFound>> = OnceLock::new();
    HSA.get_or_init(|| {
        let rocm = std::env::var("ROCM_PATH").ok().filter(|s| !s.is_empty());
        let mut tried = Vec::new();
        for path in candidates(None, false, rocm, &[HSA_NAME]) {
            // SAFETY: as for the HIP runtime; HIP itself loads this library.
            match unsafe { libloading::Library::new(&path) } {
                Err(e) => tried.push((path, e.to_string())),
                Ok(lib) => match HsaApi::resolve(&lib) {
                    Err(why) => tried.push((path, format!("loaded, but {why}"))),
                    Ok(api) => {
                        return Ok(HsaLibrary {
                            path: describe(&path, api.hsa_init as usize),
                            api,
                            _lib: lib,
                        })
                    }
                },
            }
        }
        Err(NotFound {
            what: "the HSA runtime (libhsa-runtime64)",
            override_lib: None,
            tried,
        })
    })
    .as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_order_is_names_then_rocm_path_then_opt_rocm() {
        let c = candidates(None, false, Some("/r/".into()), &HIP_NAMES);
        assert_eq!(&c[0..4], &HIP_NAMES.map(String::from));
        assert_eq!(c[4], "/r/lib/libamdhip64.so");
        assert_eq!(c[8], "/opt/rocm/lib/libamdhip64.so");
        assert_eq!(c[11], "/opt/rocm/lib/libamdhip64.so.5");
        assert_eq!(c.len(), 12);
    }

    #[test]
    fn the_env_override_is_tried_alone_never_beside_a_system_library() {
        let c = candidates(
            Some("/x/libhip.so".into()),
            false,
            Some("/r".into()),
            &HIP_NAMES,
        );
        assert_eq!(c, ["/x/libhip.so"]);
    }

    #[test]
    fn installed_runtimes_are_tried_newest_first_whatever_the_directory_order() {
        let root = std::env::temp_dir().join(format!("ds-hip-search-{}", std::process::id()));
        let (old, new, odd) = (root.join("old"), root.join("new"), root.join("odd"));
        for d in [&old, &new, &odd] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(old.join("libamdhip64.so.5.2.21153"), b"").unwrap();
        std::os::unix::fs::symlink("libamdhip64.so.5.2.21153", old.join("libamdhip64.so")).unwrap();
        std::fs::write(new.join("libamdhip64.so.6.2.60200"), b"").unwrap();
        std::os::unix::fs::symlink("libamdhip64.so.6.2.60200", new.join("libamdhip64.so.6"))
            .unwrap();
        std::os::unix::fs::symlink("missing", new.join("libamdhip64.so")).unwrap();
        std::fs::write(odd.join("libamdhip64.so"), b"").unwrap();
        let found = installed(&[odd.clone(), old.clone(), new.clone()], "libamdhip64.so");
        let found: Vec<String> = found
            .iter()
            .map(|p| p.strip_prefix(root.to_str().unwrap()).unwrap().to_string())
            .collect();
        // One path per file, newest first, the dangling link dropped, the unversioned last.
        assert_eq!(
            found,
            [
                "/new/libamdhip64.so.6",
                "/old/libamdhip64.so",
                "/odd/libamdhip64.so"
            ]
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn versions_come_from_the_resolved_file_name() {
        assert_eq!(
            file_version("libamdhip64.so.6.2.60200"),
            Some((6, 2, 60200))
        );
        assert_eq!(file_version("libamdhip64.so.5"), Some((5, 0, 0)));
        assert_eq!(file_version("libamdhip64.so"), None);
        assert_eq!(file_version("libamdhip64.so.x"), None);
    }

    #[test]
    fn rocm_path_is_not_repeated() {
        let c = candidates(None, false, Some("/opt/rocm".into()), &HIP_NAMES);
        assert_eq!(c.len(), 8, "{c:?}");
    }

    #[test]
    fn not_found_lists_every_path_with_its_reason_and_the_fix() {
        let paths = vec![
            "/nonexistent/libamdhip64.so".to_string(),
            "/also/not/here.so".to_string(),
        ];
        let e = load_hip_from(&paths).unwrap_err();
        assert_eq!(e.tried.len(), 2);
        let text = e.to_string();
        for p in &paths {
            assert!(text.contains(p.as_str()), "{text}");
        }
        assert!(text.contains("No such file"), "{text}");
        assert!(
            text.contains(ENV_LIB) && text.contains("install ROCm"),
            "{text}"
        );
    }

    #[test]
    fn a_library_without_the_hip_entry_points_is_refused_by_name() {
        // libc loads but has no hipInit.
        let e = load_hip_from(&["libc.so.6".to_string()]).unwrap_err();
        assert!(e.tried[0].1.contains("no `hipInit`"), "{:?}", e.tried);
    }
}
