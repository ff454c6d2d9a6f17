//! Naming a HIP device's gfx arch without `hipDeviceProp_t` (whose layout changed in ROCm 6).
//!
//! The HIP device's PCI location (`hipDeviceGetPCIBusId`, `"dddd:bb:dd.f"` in hex, the same in
//! every ROCm version; see sys.rs for why no device attribute is used) is matched against both:
//! 1. the KFD topology in sysfs (`/sys/class/kfd/kfd/topology/nodes/*/properties`: `domain`,
//!    `location_id` = bus << 8 | device << 3 | function, `gfx_target_version` = major * 10000 +
//!    minor * 100 + stepping, the target table's `kfd_version`; the amdkfd driver's topology ABI):
//!    the chip;
//! 2. the HSA runtime's agents (`hsa_iterate_agents`, `HSA_AGENT_INFO_NAME`,
//!    `HSA_AMD_AGENT_INFO_DOMAIN` / `_BDFID`; hsa.h, hsa_ext_amd.h): the target the runtime
//!    reports, an override applied. chip.rs decides from both (and `HSA_OVERRIDE_GFX_VERSION`).
//!
//! The workspace's stand-in runtime has neither: it answers both through its own exported symbols
//! (`library::STANDIN_ARCH_SYMBOL`, the reported target; `library::STANDIN_KFD_SYMBOL`, its
//! simulated topology's node text, read by the same matcher as sysfs), which a real `libamdhip64`
//! never exports: on a real runtime the chip is always read from the real sysfs.

use super::chip;
pub use super::chip::Arch;
use super::library::{self, HipLibrary, HsaApi};
use super::result::{self, c_buf};
use super::sys;
use ds_isa::target::Target;
use std::ffi::{c_void, CStr};
use std::os::raw::{c_char, c_int};
use std::path::Path;

/// The target-table row of a device's arch name (the processor, or HIP's form with the
/// target-id modes after it, `:sramecc+:xnack-`: `Target::by_hsa_name`) when kernels can be built for it, or
/// why the kernels cannot run on it (naming every supported target).
pub fn supported(name: &str) -> Result<&'static Target, String> {
    let t = Target::by_hsa_name(name).map(|n| n.target).map_err(|_| {
        format!(
            "{name} is not a target the kernels are built for (supported: {})",
            supported_list()
        )
    })?;
    ds_kernels::check_target(t).map(|()| t)
}

/// Why device `index` (`name`, of `target`) does not run `--target want`, and the fix. A generic
/// target is no GPU's: a GPU reports its own processor, so no `--device N` is ever one; its code
/// object runs on the emulated device. Nor is a processor whose KFD version an earlier row holds
/// (the kernel driver reports its chip as that row's, which ROCm then runs it as). `visibility`
/// quotes the `*_VISIBLE_DEVICES` variables.
pub fn refuse_target(
    want: &Target,
    index: usize,
    name: &str,
    target: &Target,
    arch: &Arch,
    visibility: &str,
) -> String {
    let is = format!(
        "--target {want} was asked for, but device {index} ({name}) is {target} (from {})",
        arch.source
    );
    if let Some(owner) = Target::by_kfd_version(want.kfd_version).filter(|o| *o != want) {
        return format!(
            "{is}; no GPU is ever a {want} to ROCm: the kernel driver reports a {want} chip with \
             {owner}'s gfx_target_version, so ROCm runs it as {owner} and loads {owner} code \
             objects. Drop --target (or ask for --target {owner}) to run such a chip, or run the \
             {want} code object on the emulated device (--backend emu --target {want})"
        );
    }
    if want.kind == ds_isa::target::Kind::Generic {
        return format!(
            "{is}; {want} is a generic target, which no GPU reports (a GPU reports its own \
             processor, and ROCm loads that processor's code object), so no HIP device is a \
             {want}. Drop --target to run this device's own {target} code object, or run the \
             {want} code object on the emulated device (--backend emu --target {want})"
        );
    }
    format!(
        "{is}; a code object loads only on its exact target. Drop --target to run on this \
         device's own target, or pick a {want} with --device N ({})",
        visibility
    )
}

/// The targets kernels are built for, comma separated.
pub fn supported_list() -> String {
    ds_kernels::kernel_targets()
        .map(|t| t.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A PCI location: domain, bus, device (slot).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Pci {
    pub domain: u32,
    pub bus: u32,
    pub device: u32,
}

impl std::fmt::Display for Pci {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:04x}:{:02x}:{:02x}",
            self.domain, self.bus, self.device
        )
    }
}

/// The HIP device's PCI location.
pub fn pci_of(lib: &HipLibrary, ordinal: i32) -> Result<Pci, String> {
    let text = result::device_pci_bus_id(&lib.api, ordinal).map_err(|e| e.to_string())?;
    parse_pci(&text).ok_or_else(|| format!("hipDeviceGetPCIBusId gave {text:?}, not dddd:bb:dd.f"))
}

/// `"0000:03:00.0"` (domain:bus:device.function, hex) -> domain 0, bus 3, device 0.
pub fn parse_pci(text: &str) -> Option<Pci> {
    let mut parts = text.trim().split(':');
    let (domain, bus, rest) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let device = rest.split('.').next()?;
    let hex = |s: &str| u32::from_str_radix(s, 16).ok();
    Some(Pci {
        domain: hex(domain)?,
        bus: hex(bus)?,
        device: hex(device)?,
    })
}

/// `gfx_target_version` (major * 10000 + minor * 100 + stepping) as an arch name: `gfx`, the
/// major in decimal, then minor and stepping as one hex digit each (so stepping 10 is `a`); for
/// the table's targets the name of the row with that `kfd_version`.
pub fn name_from_target_version(v: u32) -> Option<String> {
    let (major, minor, step) = (v / 10000, (v / 100) % 100, v % 100);
    (major > 0 && minor < 16 && step < 16).then(|| format!("gfx{major}{minor:x}{step:x}"))
}

/// The arch of the device at `pci` according to the KFD topology under `nodes_dir`.
pub fn from_kfd(nodes_dir: &Path, pci: Pci) -> Result<Arch, String> {
    let entries = std::fs::read_dir(nodes_dir)
        .map_err(|e| format!("cannot read {}: {e}", nodes_dir.display()))?;
    let nodes = entries.flatten().filter_map(|entry| {
        let text = std::fs::read_to_string(entry.path().join("properties")).ok()?;
        Some((format!("KFD sysfs {}", entry.path().display()), text))
    });
    match_kfd_node(nodes, pci, &nodes_dir.display().to_string())
}

/// The arch of the device at `pci` among KFD topology nodes, each a label (where it was read)
/// and its `properties` text (`key value` lines: `gfx_target_version`, `location_id`, `domain`);
/// `place` names the topology in the error.
pub fn match_kfd_node(
    nodes: impl Iterator<Item = (String, String)>,
    pci: Pci,
    place: &str,
) -> Result<Arch, String> {
    let mut gpus = 0;
    for (label, text) in nodes {
        let field = |key: &str| {
            text.lines().find_map(|l| {
                let mut it = l.split_whitespace();
                (it.next() == Some(key))
                    .then(|| it.next()?.parse::<u64>().ok())
                    .flatten()
            })
        };
        let Some(version) = field("gfx_target_version").filter(|&v| v != 0) else {
            continue;
        };
        gpus += 1;
        let location = field("location_id").unwrap_or(u64::MAX);
        let domain = field("domain").unwrap_or(0);
        if domain == u64::from(pci.domain)
            && location >> 8 == u64::from(pci.bus)
            && (location >> 3) & 0x1f == u64::from(pci.device)
        {
            let name = name_from_target_version(version as u32).ok_or_else(|| {
                format!("{label}: gfx_target_version {version} is not a version number")
            })?;
            return Ok(Arch {
                name,
                source: format!("{label} (gfx_target_version {version})"),
                overridden: None,
            });
        }
    }
    Err(format!(
        "no KFD node under {place} is at PCI {pci} ({gpus} GPU node(s) seen)"
    ))
}

/// One HSA GPU agent.
#[derive(Debug, Clone)]
struct Agent {
    name: String,
    domain: u32,
    bdfid: u32,
}

struct Walk<'a> {
    api: &'a HsaApi,
    agents: Vec<Agent>,
    error: Option<String>,
}

fn hsa_text(api: &HsaApi, status: sys::hsa_status_t) -> String {
    let mut p: *const c_char = std::ptr::null();
    // SAFETY: writes a pointer to a static string.
    let r = unsafe { (api.hsa_status_string)(status, &mut p) };
    if r != sys::HSA_STATUS_SUCCESS || p.is_null() {
        return format!("HSA status {status:#x}");
    }
    // SAFETY: a NUL-terminated static string.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

unsafe extern "C" fn visit(agent: sys::hsa_agent_t, data: *mut c_void) -> sys::hsa_status_t {
    // SAFETY: `data` is the `Walk` passed to hsa_iterate_agents by `from_hsa`, alive for the call.
    let walk = unsafe { &mut *data.cast::<Walk>() };
    let api = walk.api;
    let mut kind: sys::hsa_device_type_t = 0;
    // SAFETY: HSA_AGENT_INFO_DEVICE writes one hsa_device_type_t.
    let r = unsafe {
        (api.hsa_agent_get_info)(
            agent,
            sys::HSA_AGENT_INFO_DEVICE,
            (&mut kind as *mut u32).cast(),
        )
    };
    if r != sys::HSA_STATUS_SUCCESS {
        walk.error = Some(format!(
            "hsa_agent_get_info(HSA_AGENT_INFO_DEVICE): {}",
            hsa_text(api, r)
        ));
        return r;
    }
    if kind != sys::HSA_DEVICE_TYPE_GPU {
        return sys::HSA_STATUS_SUCCESS;
    }
    let mut name = [0 as c_char; 64];
    let mut domain: u32 = 0;
    let mut bdfid: u32 = 0;
    for (attr, what, ptr) in [
        (
            sys::HSA_AGENT_INFO_NAME,
            "HSA_AGENT_INFO_NAME",
            name.as_mut_ptr().cast::<c_void>(),
        ),
        (
            sys::HSA_AMD_AGENT_INFO_DOMAIN,
            "HSA_AMD_AGENT_INFO_DOMAIN",
            (&mut domain as *mut u32).cast(),
        ),
        (
            sys::HSA_AMD_AGENT_INFO_BDFID,
            "HSA_AMD_AGENT_INFO_BDFID",
            (&mut bdfid as *mut u32).cast(),
        ),
    ] {
        // SAFETY: NAME writes char[64]; DOMAIN and BDFID write one uint32_t each (hsa.h, hsa_ext_amd.h).
        let r = unsafe { (api.hsa_agent_get_info)(agent, attr, ptr) };
        if r != sys::HSA_STATUS_SUCCESS {
            walk.error = Some(format!("hsa_agent_get_info({what}): {}", hsa_text(api, r)));
            return r;
        }
    }
    walk.agents.push(Agent {
        name: c_buf(&name),
        domain,
        bdfid,
    });
    sys::HSA_STATUS_SUCCESS
}

/// The arch of the device at `pci` according to the HSA runtime's agents.
pub fn from_hsa(pci: Pci) -> Result<Arch, String> {
    let hsa = library::hsa().map_err(|e| e.to_string())?;
    let api = &hsa.api;
    // SAFETY: plain call; balanced by hsa_shut_down below.
    let r = unsafe { (api.hsa_init)() };
    if r != sys::HSA_STATUS_SUCCESS {
        return Err(format!(
            "hsa_init failed ({}): {}",
            hsa.path,
            hsa_text(api, r)
        ));
    }
    let mut walk = Walk {
        api,
        agents: Vec::new(),
        error: None,
    };
    // SAFETY: `visit` matches the callback type and `walk` outlives the call.
    let r = unsafe { (api.hsa_iterate_agents)(Some(visit), (&mut walk as *mut Walk).cast()) };
    // SAFETY: balances the successful hsa_init.
    let down = unsafe { (api.hsa_shut_down)() };
    if r != sys::HSA_STATUS_SUCCESS {
        return Err(walk
            .error
            .unwrap_or_else(|| format!("hsa_iterate_agents: {}", hsa_text(api, r))));
    }
    if down != sys::HSA_STATUS_SUCCESS {
        eprintln!("warning: hsa_shut_down: {}", hsa_text(api, down));
    }
    let found = walk.agents.iter().find(|a| {
        a.domain == pci.domain && a.bdfid >> 8 == pci.bus && (a.bdfid >> 3) & 0x1f == pci.device
    });
    match found {
        Some(a) => Ok(Arch {
            name: a.name.clone(),
            source: format!("HSA agent name via {}", hsa.path),
            overridden: None,
        }),
        None => Err(format!(
            "no HSA GPU agent is at PCI {pci} ({} GPU agent(s) seen)",
            walk.agents.len()
        )),
    }
}

/// What the stand-in runtime reports for the device (as ROCm's agent name: the override's
/// target under `HSA_OVERRIDE_GFX_VERSION`).
fn from_standin(f: library::StandinArchFn, lib: &HipLibrary, ordinal: i32) -> Result<Arch, String> {
    let mut buf = [0 as c_char; 64];
    // SAFETY: the stand-in writes at most `len` bytes including the terminator.
    let code = unsafe { f(ordinal, buf.as_mut_ptr(), buf.len() as c_int) };
    result::check(&lib.api, library::STANDIN_ARCH_SYMBOL, code).map_err(|e| e.to_string())?;
    Ok(Arch {
        name: c_buf(&buf),
        source: format!(
            "stand-in runtime {} ({})",
            lib.path,
            library::STANDIN_ARCH_SYMBOL
        ),
        overridden: None,
    })
}

/// The chip of the device at `pci` according to the stand-in runtime's simulated KFD topology
/// (its nodes' `properties` text through [`library::STANDIN_KFD_SYMBOL`], read with the same
/// matcher as sysfs).
fn from_standin_kfd(f: library::StandinKfdFn, lib: &HipLibrary, pci: Pci) -> Result<Arch, String> {
    let mut nodes = Vec::new();
    for node in 0.. {
        let mut buf = [0 as c_char; 512];
        // SAFETY: the stand-in writes at most `len` bytes including the terminator.
        match unsafe { f(node, buf.as_mut_ptr(), buf.len() as c_int) } {
            library::STANDIN_KFD_NODE => nodes.push((
                format!("the stand-in's simulated KFD node {node}"),
                c_buf(&buf),
            )),
            library::STANDIN_KFD_END => break,
            _ => {
                return Err(format!(
                    "cannot read the stand-in's simulated KFD topology ({}: {})",
                    lib.path,
                    c_buf(&buf)
                ))
            }
        }
    }
    match_kfd_node(
        nodes.into_iter(),
        pci,
        &format!(
            "the stand-in's simulated topology ({})",
            library::STANDIN_KFD_SYMBOL
        ),
    )
}

/// The KFD topology directory.
pub const KFD_NODES: &str = "/sys/class/kfd/kfd/topology/nodes";

/// The arch ROCm runs HIP device `ordinal` as, with its chip named when they differ
/// ([`chip::combine`]): the chip from the KFD topology (sysfs; the stand-in's simulated one for
/// the stand-in runtime), what the runtime reports from its HSA agent (the stand-in's answer for
/// the stand-in), and `HSA_OVERRIDE_GFX_VERSION`. The error says what each source answered.
pub fn detect(lib: &HipLibrary, ordinal: i32) -> Result<Arch, String> {
    let env = std::env::var(chip::ENV_OVERRIDE).ok();
    let pci =
        pci_of(lib, ordinal).map_err(|e| format!("cannot find the device's PCI location: {e}"));
    let (kfd, reported) = match (lib.standin_arch, lib.standin_kfd) {
        (Some(arch), Some(kfd)) => (
            pci.clone().and_then(|pci| from_standin_kfd(kfd, lib, pci)),
            from_standin(arch, lib, ordinal),
        ),
        _ => {
            let pci = pci.clone()?;
            (from_kfd(Path::new(KFD_NODES), pci), from_hsa(pci))
        }
    };
    chip::combine(kfd, reported, env.as_deref()).map_err(|e| {
        format!(
            "the arch of the device at PCI {} is unknown: {e}",
            pci.map_or_else(|e| e, |p| p.to_string())
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pci_bus_ids_parse_as_hip_prints_them() {
        assert_eq!(
            parse_pci("0000:03:00.0"),
            Some(Pci {
                domain: 0,
                bus: 3,
                device: 0
            })
        );
        assert_eq!(
            parse_pci("0001:c3:1f.0"),
            Some(Pci {
                domain: 1,
                bus: 0xc3,
                device: 0x1f
            })
        );
        assert_eq!(
            parse_pci("0000:0c:00"),
            Some(Pci {
                domain: 0,
                bus: 0xc,
                device: 0
            })
        );
        assert_eq!(parse_pci("03:00.0"), None);
        assert_eq!(parse_pci(""), None);
    }

    #[test]
    fn every_targets_kfd_version_names_it_and_is_supported() {
        for t in ds_isa::target::TARGETS {
            let name = name_from_target_version(t.kfd_version).unwrap();
            // A row sharing an earlier row's version (gfx909: amdkfd reports the Raven Ridge 2
            // as gfx902) names that row: the chip is read as the processor ROCm runs it as.
            let t = Target::by_kfd_version(t.kfd_version).unwrap();
            assert_eq!(name, t.name);
            match ds_kernels::check_target(t) {
                Ok(()) => assert_eq!(supported(&name), Ok(t)),
                Err(why) => assert_eq!(supported(&name), Err(why)),
            }
        }
        let e = supported("gfx805").unwrap_err();
        assert!(e.contains("gfx805 is not a target"), "{e}");
        assert!(
            ds_kernels::kernel_targets().all(|t| e.contains(t.name)),
            "{e}"
        );
        // HIP's name of a gfx9 device with its target-id features is the table's target.
        let gfx942 = ds_isa::target::Target::by_name("gfx942").unwrap();
        assert_eq!(supported("gfx942:sramecc+:xnack-"), Ok(gfx942));
        let gfx1100 = ds_isa::target::DEFAULT;
        assert_eq!(supported(gfx1100.name), Ok(gfx1100));
    }

    #[test]
    fn target_versions_name_the_arch_with_hex_minor_and_stepping() {
        assert_eq!(name_from_target_version(110000).as_deref(), Some("gfx1100"));
        assert_eq!(name_from_target_version(110001).as_deref(), Some("gfx1101"));
        assert_eq!(name_from_target_version(100300).as_deref(), Some("gfx1030"));
        assert_eq!(name_from_target_version(90010).as_deref(), Some("gfx90a"));
        assert_eq!(name_from_target_version(0), None);
    }

    fn node(root: &Path, n: u32, props: &str) {
        let d = root.join(n.to_string());
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("properties"), props).unwrap();
    }

    #[test]
    fn kfd_topology_is_matched_by_pci_location_not_by_order() {
        let root = std::env::temp_dir().join(format!("ds-harness-kfd-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        node(
            &root,
            0,
            "cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\nlocation_id 0\ndomain 0\n",
        );
        // A gfx1030 at 0000:03:00.0 and a gfx1100 at 0000:0c:00.0.
        node(
            &root,
            1,
            "simd_count 80\ngfx_target_version 100300\nlocation_id 768\ndomain 0\n",
        );
        node(
            &root,
            2,
            "simd_count 192\ngfx_target_version 110000\nlocation_id 3072\ndomain 0\n",
        );
        let a = from_kfd(
            &root,
            Pci {
                domain: 0,
                bus: 0x0c,
                device: 0,
            },
        )
        .unwrap();
        assert_eq!(a.name, "gfx1100");
        assert!(
            a.source.contains("110000") && a.source.contains("/2"),
            "{}",
            a.source
        );
        assert_eq!(
            from_kfd(
                &root,
                Pci {
                    domain: 0,
                    bus: 3,
                    device: 0
                }
            )
            .unwrap()
            .name,
            "gfx1030"
        );
        let e = from_kfd(
            &root,
            Pci {
                domain: 1,
                bus: 3,
                device: 0,
            },
        )
        .unwrap_err();
        assert!(
            e.contains("0001:03:00") && e.contains("2 GPU node(s)"),
            "{e}"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_missing_kfd_topology_is_said_in_words() {
        let e = from_kfd(
            Path::new("/nonexistent/kfd/nodes"),
            Pci {
                domain: 0,
                bus: 0,
                device: 0,
            },
        )
        .unwrap_err();
        assert!(e.contains("cannot read /nonexistent/kfd/nodes"), "{e}");
    }
}
