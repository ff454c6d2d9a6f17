//! Finding and loading the HIP runtime (`libamdhip64`) at run time with `libloading`, in the
//! cudarc style: one process-wide `OnceLock`, a fixed list of candidate paths with an environment
//! override, and an error that lists every path tried with the loader's own reason.
//!
//! Search order (DESIGN.md section 4): `libamdhip64.so`, `.so.7`, `.so.6`, `.so.5` through the
//! dynamic loader's own search (LD_LIBRARY_PATH, ld.so.cache); then the same names under
//! `$ROCM_PATH/lib` and `/opt/rocm/lib`. `$DS_HARNESS_HIP_LIB` is an explicit request, so it is
//! tried alone: when it does not load, that is the answer (an error naming it), never a silent
//! fall back to a system library. Test-only: `DS_HARNESS_HIP_SEARCH=only-env` makes
//! `$DS_HARNESS_HIP_LIB` the whole search of a machine with no other runtime: its failure is then
//! "no HIP runtime", as on a machine without ROCm, not a failed override.

use super::sys;
use std::fmt;
use std::os::raw::{c_char, c_int};
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

/// `int ds_hip_standin_gcn_arch_name(int device, char* name, int len)`: writes the stand-in
/// device's arch name; returns a `hipError_t`.
pub type StandinArchFn = unsafe extern "C" fn(c_int, *mut c_char, c_int) -> sys::hipError_t;

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
                        // real header by tests/hip_bindgen_drift.rs.
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
            "fix: install ROCm (5.2 or later; Debian/Ubuntu: `apt-get install libamdhip64-5`), or set \
             ROCM_PATH to its prefix, or set {ENV_LIB}=/path/to/libamdhip64.so"
        )
    }
}

/// The candidate paths, in order, for the current environment.
pub fn hip_candidates() -> Vec<String> {
    candidates(
        std::env::var(ENV_LIB).ok().filter(|s| !s.is_empty()),
        std::env::var(ENV_SEARCH).ok().as_deref() == Some("only-env"),
        std::env::var("ROCM_PATH").ok().filter(|s| !s.is_empty()),
        &HIP_NAMES,
    )
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
                    return Ok(HipLibrary {
                        path: describe(path, api.hipInit as usize),
                        api,
                        standin_arch,
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
