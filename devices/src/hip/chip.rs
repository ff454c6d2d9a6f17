//! Which chip a HIP device is, and whether ROCm runs it as another target (an override).
//!
//! Two facts are read of every device (arch.rs reads them): the chip, from the KFD node's own
//! `gfx_target_version` (`/sys/class/kfd/kfd/topology/nodes/*/properties`, the amdkfd topology
//! ABI), and the target the runtime reports and loads code objects for (the HSA agent's name;
//! ROCR-Runtime applies `HSA_OVERRIDE_GFX_VERSION` when it builds its agents, so an overridden
//! device reports the override's target). They differ under `HSA_OVERRIDE_GFX_VERSION` or any
//! other setting that makes ROCm report another target than the chip's; [`combine`] decides what
//! the device is from both, and names the override and the chip when they differ.
//!
//! When the chip cannot be read (no readable KFD node: sysfs not mounted, as in some containers)
//! and an override is set, the chip is unknown: the device still runs (as the override's target),
//! `info` and the run header say the chip is unknown, and `run --record` is refused, because a
//! recording must name the hardware its results are of (docs/recordings.md).

/// A device's arch and where the answer came from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Arch {
    /// The processor name ROCm runs the device as (the chip's own, or the one an override such as
    /// `HSA_OVERRIDE_GFX_VERSION` makes it), e.g. a target table name: code objects are built for
    /// it.
    pub name: String,
    /// e.g. "KFD sysfs /sys/class/kfd/kfd/topology/nodes/1 (gfx_target_version N)".
    pub source: String,
    /// When an override makes ROCm run the device as another target: the chip's own processor
    /// name (or that it could not be read) and the override ([`combine`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overridden: Option<Overridden>,
}

/// The variable that makes ROCm report (and load code objects for) another target than the
/// chip's: `major.minor.stepping` in decimal (ROCR-Runtime reads it when it builds its agents).
pub const ENV_OVERRIDE: &str = "HSA_OVERRIDE_GFX_VERSION";

/// What the chip detail and `info` say when the chip could not be read.
pub const UNKNOWN_CHIP: &str = "unknown";

/// A device ROCm runs as another target than its chip's.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Overridden {
    /// The chip's own processor name (KFD topology), `None` when it could not be read.
    pub chip: Option<String>,
    /// Where the chip's name came from, or why it could not be read.
    pub chip_source: String,
    /// What makes ROCm run the chip as another target: the variable and its value
    /// (`HSA_OVERRIDE_GFX_VERSION=10.3.0`), or, when no such variable is set, the two names
    /// that differ.
    pub by: String,
}

impl Overridden {
    /// The chip's name, or [`UNKNOWN_CHIP`].
    pub fn chip_name(&self) -> &str {
        self.chip.as_deref().unwrap_or(UNKNOWN_CHIP)
    }
}

/// The processor name ROCm runs a device as under `HSA_OVERRIDE_GFX_VERSION=value`: `major.minor.
/// stepping` -> `gfx{major}{minor:x}{stepping:x}` (the form of the target table's names and of
/// KFD's `gfx_target_version`); `None` when it is not three decimal numbers with minor and
/// stepping below 16.
pub fn override_name(value: &str) -> Option<String> {
    let parts: Vec<u32> = value
        .trim()
        .split('.')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    match parts[..] {
        [major, minor, step] if major > 0 && minor < 16 && step < 16 => {
            Some(format!("gfx{major}{minor:x}{step:x}"))
        }
        _ => None,
    }
}

/// The override's target name, when the variable is set to a version; an error in words when it
/// is set to something else.
fn override_target(env: Option<&str>) -> Result<Option<String>, String> {
    let Some(value) = env else { return Ok(None) };
    override_name(value).map(Some).ok_or_else(|| {
        format!(
            "{ENV_OVERRIDE}={value:?} is set, and is not a version (major.minor.stepping, e.g. \
             11.0.0): ROCm's runtime would not run the device as a known target; fix or unset it"
        )
    })
}

/// The device, from its chip (the KFD node, or why it could not be read), what the runtime
/// reports (the HSA agent, or why it could not be asked) and the value of
/// `HSA_OVERRIDE_GFX_VERSION` (`env`):
/// - both known and equal: the chip, no override;
/// - both known and different: the reported target, overridden, the chip named (by the variable
///   when it is set, else by the two names: another variable or setting did it);
/// - only the chip known: the chip, as the variable (if set) makes ROCm run it;
/// - only the report known: with the variable set, the reported target with the chip unknown;
///   without it, the report is taken as the chip, and the source says the chip was not read;
/// - neither: an error naming both reasons.
pub fn combine(
    chip: Result<Arch, String>,
    reported: Result<Arch, String>,
    env: Option<&str>,
) -> Result<Arch, String> {
    // Set but empty is unset, as ROCR-Runtime reads it (it applies the variable only when it
    // has a value).
    let env = env.filter(|v| !v.trim().is_empty());
    let target = override_target(env)?;
    let by_env = |v: &str| format!("{ENV_OVERRIDE}={v}");
    match (chip, reported) {
        (Ok(c), Ok(r)) if c.name == r.name => Ok(c),
        (Ok(c), Ok(r)) => Ok(Arch {
            overridden: Some(Overridden {
                by: env.map(by_env).unwrap_or_else(|| {
                    format!(
                        "a setting other than {ENV_OVERRIDE} (the runtime reports {}, the chip's \
                         KFD node {})",
                        r.name, c.name
                    )
                }),
                chip: Some(c.name),
                chip_source: c.source,
            }),
            ..r
        }),
        (Ok(c), Err(_)) => Ok(match target {
            Some(name) if name != c.name => Arch {
                name,
                source: c.source.clone(),
                overridden: Some(Overridden {
                    chip: Some(c.name),
                    chip_source: c.source,
                    by: env.map(by_env).unwrap_or_default(),
                }),
            },
            _ => c,
        }),
        (Err(why), Ok(r)) => Ok(match env {
            Some(v) => Arch {
                overridden: Some(Overridden {
                    chip: None,
                    chip_source: format!("the chip could not be read: {why}"),
                    by: by_env(v),
                }),
                ..r
            },
            None => Arch {
                source: format!(
                    "{} (taken as the chip: no {ENV_OVERRIDE} is set; the chip's KFD node could \
                     not be read: {why})",
                    r.source
                ),
                ..r
            },
        }),
        (Err(kfd), Err(rt)) => Err(format!("the chip: {kfd}; the runtime's report: {rt}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arch(name: &str, source: &str) -> Result<Arch, String> {
        Ok(Arch {
            name: name.into(),
            source: source.into(),
            overridden: None,
        })
    }

    #[test]
    fn an_override_names_the_target_rocm_runs() {
        assert_eq!(override_name("11.0.1").as_deref(), Some("gfx1101"));
        assert_eq!(override_name(" 10.3.0 ").as_deref(), Some("gfx1030"));
        assert_eq!(override_name("9.4.2").as_deref(), Some("gfx942"));
        assert_eq!(override_name("9.0.10").as_deref(), Some("gfx90a"));
        for bad in ["", "11", "11.0", "11.0.0.0", "x.y.z", "11.16.0", "0.0.0"] {
            assert_eq!(override_name(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn chip_and_report_agreeing_is_no_override() {
        let a = combine(arch("gfx1100", "kfd"), arch("gfx1100", "hsa"), None).unwrap();
        assert_eq!((a.name.as_str(), a.source.as_str()), ("gfx1100", "kfd"));
        assert_eq!(a.overridden, None);
        // The variable naming the chip's own version changes nothing.
        let a = combine(
            arch("gfx1100", "kfd"),
            arch("gfx1100", "hsa"),
            Some("11.0.0"),
        )
        .unwrap();
        assert_eq!(a.overridden, None);
    }

    #[test]
    fn the_variable_runs_the_chip_as_its_target_and_names_both() {
        for reported in [arch("gfx1030", "hsa"), Err("no HSA".to_string())] {
            let a = combine(arch("gfx1032", "kfd node 3"), reported, Some("10.3.0")).unwrap();
            assert_eq!(a.name, "gfx1030");
            let o = a.overridden.unwrap();
            assert_eq!(o.chip.as_deref(), Some("gfx1032"));
            assert_eq!(o.chip_source, "kfd node 3");
            assert_eq!(o.by, "HSA_OVERRIDE_GFX_VERSION=10.3.0");
        }
    }

    #[test]
    fn a_report_differing_from_the_chip_without_the_variable_is_an_override_too() {
        let a = combine(arch("gfx1032", "kfd"), arch("gfx1030", "hsa"), None).unwrap();
        assert_eq!(a.name, "gfx1030");
        let o = a.overridden.unwrap();
        assert_eq!(o.chip_name(), "gfx1032");
        assert!(
            o.by.contains(
                "other than HSA_OVERRIDE_GFX_VERSION (the runtime reports gfx1030, the chip's KFD \
                 node gfx1032)"
            ),
            "{}",
            o.by
        );
    }

    #[test]
    fn an_unreadable_chip_under_the_variable_is_unknown_never_the_override() {
        let a = combine(
            Err("cannot read /sys".into()),
            arch("gfx1030", "hsa"),
            Some("10.3.0"),
        )
        .unwrap();
        assert_eq!(a.name, "gfx1030");
        let o = a.overridden.unwrap();
        assert_eq!(o.chip, None);
        assert_eq!(o.chip_name(), UNKNOWN_CHIP);
        assert!(
            o.chip_source.contains("cannot read /sys"),
            "{}",
            o.chip_source
        );
        // Without the variable the report is taken as the chip, and the source says so.
        let a = combine(Err("cannot read /sys".into()), arch("gfx1100", "hsa"), None).unwrap();
        assert_eq!(a.overridden, None);
        assert!(a.source.contains("taken as the chip"), "{}", a.source);
    }

    /// `HSA_OVERRIDE_GFX_VERSION=` (set, empty) is no override, as for ROCm's runtime (issue 33
    /// L5: it made every device unusable).
    #[test]
    fn an_empty_variable_is_unset() {
        for empty in ["", "  "] {
            let a = combine(arch("gfx1100", "k"), arch("gfx1100", "h"), Some(empty)).unwrap();
            assert_eq!(
                (a.name.as_str(), a.overridden),
                ("gfx1100", None),
                "{empty:?}"
            );
            let a = combine(Err("k".into()), arch("gfx1100", "h"), Some(empty)).unwrap();
            assert_eq!(a.overridden, None, "{empty:?}");
        }
    }

    #[test]
    fn a_variable_that_is_no_version_or_no_source_at_all_is_an_error() {
        let e = combine(arch("gfx1100", "k"), arch("gfx1100", "h"), Some("eleven")).unwrap_err();
        assert!(e.contains("is not a version (major.minor.stepping"), "{e}");
        let e = combine(Err("k".into()), Err("h".into()), None).unwrap_err();
        assert!(e.contains("the chip: k; the runtime's report: h"), "{e}");
    }
}
