//! Invariants of the target table: rows that cannot be inconsistent.

use super::*;
use crate::ds::Isa;
use std::collections::HashSet;

#[test]
fn names_machines_and_kfd_versions_are_unique() {
    let mut names = HashSet::new();
    let mut machines = HashSet::new();
    let mut kfd = HashSet::new();
    for t in all() {
        assert!(names.insert(t.name), "{} twice", t.name);
        assert!(machines.insert(t.machine), "{:#x} twice", t.machine);
    }
    // A KFD version names one row (the first with it); a later row shares it only as a chip
    // amdkfd reports with the earlier row's version: the Raven Ridge 2 (gfx909) as gfx902.
    let shared: Vec<(&str, &str)> = TARGETS
        .iter()
        .filter(|t| !kfd.insert(t.kfd_version))
        .map(|t| (t.name, Target::by_kfd_version(t.kfd_version).unwrap().name))
        .collect();
    assert_eq!(shared, [("gfx909", "gfx902")]);
}

#[test]
fn generic_rows_cover_their_generation_and_no_device_reports_them() {
    for g in GENERIC_TARGETS {
        assert!(g.is_generic() && g.generic.is_none() && g.kind == Kind::Generic);
        // `<generation>-generic` or `<generation>-<minor>-generic` (gfx9-4-generic, gfx10-3-generic).
        let rest = g.name.strip_prefix(g.generation.name()).unwrap();
        assert!(
            rest == "-generic"
                || rest
                    .strip_prefix('-')
                    .and_then(|r| r.strip_suffix("-generic"))
                    .is_some_and(|m| m.len() == 1 && m.bytes().all(|b| b.is_ascii_digit())),
            "{g} is not a {} generic target's name",
            g.generation
        );
        assert_eq!(g.kfd_version, 0, "{g}: no GPU reports a generic target");
        let members: Vec<_> = g.members().collect();
        assert!(!members.is_empty(), "{g} covers no processor");
        for m in &members {
            assert_eq!(m.generation, g.generation, "{m} in {g}");
            assert_eq!(m.generic_target(), Some(g));
            // The family's wave sizes; at most the LDS of its least member (LLVM's limit for
            // the generic target), the member's DS features and target-id features.
            assert_eq!(
                m.wave_sizes, g.wave_sizes,
                "{m}: {g} runs the family's wave sizes"
            );
            assert!(m.lds_bytes >= g.lds_bytes, "{m}: less LDS than {g}");
            assert!(
                m.ds_features.contains(g.ds_features),
                "{m}: {g}'s DS features"
            );
            assert!(
                (m.target_id.xnack || !g.target_id.xnack)
                    && (m.target_id.sramecc || !g.target_id.sramecc),
                "{m}: {g}'s target-id features"
            );
            assert_eq!(m.packed_workitem_ids, g.packed_workitem_ids, "{m}: {g}");
            assert_eq!(m.unified_vgprs, g.unified_vgprs, "{m}: {g}");
            assert_eq!(m.errata, g.errata, "{m}: {g}'s errata");
        }
        assert_eq!(Target::by_name(g.name).unwrap(), g);
        assert_eq!(Target::by_machine(g.machine).unwrap(), g);
        assert_eq!(Target::by_kfd_version(g.kfd_version), None);
    }
    let mut without = Vec::new();
    for t in TARGETS {
        assert!(!t.is_generic() && t.kind != Kind::Generic, "{t}");
        let Some(g) = t.generic_target() else {
            assert!(t.generic.is_none(), "{t}: its generic row is missing");
            without.push(t.name);
            continue;
        };
        assert!(g.members().any(|m| m == t));
    }
    // AMDGPUUsage's "Generic Processors": gfx908 and gfx90a are in no generic target, and LLVM 22
    // has none for GFX 12.5 (`llc-22 -mcpu=help` lists no gfx12-5-generic).
    assert_eq!(without, ["gfx1250", "gfx1251", "gfx908", "gfx90a"]);
    let members = |g: &str| -> Vec<&str> {
        Target::by_name(g)
            .unwrap()
            .members()
            .map(|t| t.name)
            .collect()
    };
    assert_eq!(
        members("gfx9-generic"),
        ["gfx900", "gfx902", "gfx904", "gfx909", "gfx90c", "gfx906"]
    );
    assert_eq!(members("gfx9-4-generic"), ["gfx942", "gfx950"]);
    assert_eq!(members("gfx10-1-generic").len(), 4);
    assert_eq!(members("gfx10-3-generic").len(), 7);
    assert!(supported_list().contains("generic: "));
}

#[test]
fn kfd_version_spells_the_name() {
    // gfx_target_version is major * 10000 + minor * 100 + stepping of the name's digits
    // (minor and stepping one hex digit each).
    // (A row sharing an earlier row's version spells that row's name: gfx909's is gfx902's.)
    for t in TARGETS {
        let v = t.kfd_version;
        let owner = Target::by_kfd_version(v).unwrap();
        let digits = owner
            .name
            .strip_prefix("gfx")
            .expect("names start with gfx");
        let spelled = format!("{}{:x}{:x}", v / 10000, v / 100 % 100, v % 100);
        assert_eq!(digits, spelled, "{}", t.name);
    }
}

#[test]
fn rows_agree_with_their_generation() {
    for t in TARGETS {
        let prefix = t.generation.name();
        // gfx11 + two digits (minor, stepping), or a point generation's digits (gfx12.5: gfx125)
        // + one (stepping).
        let (stem, digits) = match prefix.split_once('.') {
            Some((major, minor)) => (format!("{major}{minor}"), 1),
            None => (prefix.to_string(), 2),
        };
        assert!(
            t.name.starts_with(&stem) && t.name.len() == stem.len() + digits,
            "{} is not a {prefix} processor name",
            t.name
        );
        // gfx9 runs wave64 only, GFX 12.5 wave32 only; RDNA runs both (wave32 the default).
        let waves: &[u32] = match t.generation {
            Generation::Gfx9 => &[64],
            Generation::Gfx12_5 => &[32],
            _ => &[32, 64],
        };
        assert_eq!(t.wave_sizes, waves, "{}", t.name);
        assert!(
            t.lds_bytes % 4096 == 0 && t.lds_bytes >= 65536,
            "{}: LDS {}",
            t.name,
            t.lds_bytes
        );
        assert!(!t.products.is_empty(), "{} names no product", t.name);
        // The descriptor encodes LDS in 512-byte units (gfx950: 1280); the allocation granule
        // is a whole number of 256-byte blocks and divides the LDS a workgroup can have.
        assert!(
            t.lds_granule % 256 == 0 && t.lds_granule >= 512 && t.lds_bytes % t.lds_granule == 0,
            "{}: LDS granule {}",
            t.name,
            t.lds_granule
        );
        assert!(
            !(t.architected_sgprs && t.user_sgpr_init16_bug),
            "{}: LLVM pads user SGPRs only where workgroup ids are system SGPRs",
            t.name
        );
        // Every target of a generation has what the generation's column needs of all of them.
        assert!(t.ds_features.contains(Isa::common(t.generation).features));
    }
    assert_eq!(DEFAULT.name, TARGETS[0].name);
}

/// Which targets have which DS features (the issues' facts, each checked against llvm-mc by
/// `reference/tests/all/llvm_oracle.rs`): src2 up to gfx908 and on gfx1010-gfx1013; f64 add and acc
/// from gfx90a; packed 16-bit adds from gfx942 (and gfx12); transpose loads on gfx950 only; GDS
/// gone from gfx90a; even tuples from gfx90a.
#[test]
fn ds_features_per_target() {
    let with = |f: DsFeatures| -> Vec<&str> {
        TARGETS
            .iter()
            .filter(|t| t.ds_features.contains(f))
            .map(|t| t.name)
            .collect()
    };
    let gfx9_10 = |f: DsFeatures| -> Vec<&str> {
        TARGETS
            .iter()
            .filter(|t| matches!(t.generation, Generation::Gfx9 | Generation::Gfx10))
            .filter(|t| t.ds_features.contains(f))
            .map(|t| t.name)
            .collect()
    };
    assert_eq!(
        with(DsFeatures::SRC2),
        [
            "gfx900", "gfx902", "gfx904", "gfx909", "gfx90c", "gfx906", "gfx908", "gfx1010",
            "gfx1011", "gfx1012", "gfx1013"
        ]
    );
    assert_eq!(
        with(DsFeatures::F64),
        ["gfx1250", "gfx1251", "gfx90a", "gfx942", "gfx950"]
    );
    assert_eq!(with(DsFeatures::ACC), ["gfx90a", "gfx942", "gfx950"]);
    assert_eq!(with(DsFeatures::TR), ["gfx950"]);
    assert_eq!(
        with(DsFeatures::PK16),
        ["gfx1200", "gfx1201", "gfx1250", "gfx1251", "gfx942", "gfx950"]
    );
    assert_eq!(
        TARGETS
            .iter()
            .filter(|t| !t.ds_features.contains(DsFeatures::UNALIGNED))
            .map(|t| t.name)
            .collect::<Vec<_>>(),
        ["gfx1250", "gfx1251", "gfx90a", "gfx942", "gfx950"]
    );
    let gds = gfx9_10(DsFeatures::GDS);
    assert!(!gds.contains(&"gfx90a") && gds.contains(&"gfx908") && gds.contains(&"gfx1036"));
    assert_eq!(
        gfx9_10(DsFeatures::GWS).len(),
        21,
        "every gfx9 and gfx10 target has GWS"
    );
}

#[test]
fn target_id_features_and_e_flags() {
    // e_flags as llvm-mc-19/22 write them (target_llvm.rs checks every row against both).
    for (name, flags) in [
        ("gfx900", 0x12c),
        ("gfx902", 0x12d),
        ("gfx904", 0x12e),
        ("gfx909", 0x131),
        ("gfx90c", 0x132),
        ("gfx9-generic", 0x100_0151),
        ("gfx9-4-generic", 0x100_055f),
        ("gfx10-1-generic", 0x100_0152),
        ("gfx10-3-generic", 0x100_0053),
        ("gfx906", 0x52f),
        ("gfx908", 0x530),
        ("gfx90a", 0x53f),
        ("gfx942", 0x54c),
        ("gfx950", 0x54f),
        ("gfx1010", 0x133),
        ("gfx1013", 0x142),
        ("gfx1030", 0x36),
        ("gfx1036", 0x45),
        ("gfx1100", 0x41),
        ("gfx1250", 0x549),
        ("gfx1251", 0x55a),
    ] {
        assert_eq!(Target::by_name(name).unwrap().e_flags(), flags, "{name}");
    }
    for g in GENERIC_TARGETS {
        assert_eq!(
            g.e_flags(),
            u32::from(g.machine) | g.e_flags_features() | 1 << 24
        );
    }
}

#[test]
fn hip_device_names_parse_to_their_row() {
    let gfx942 = Target::by_name("gfx942").unwrap();
    let n = Target::by_hsa_name("gfx942:sramecc+:xnack-").unwrap();
    assert_eq!(
        (n.target, n.sramecc, n.xnack),
        (gfx942, Some(true), Some(false))
    );
    let n = Target::by_hsa_name("amdgcn-amd-amdhsa--gfx942:xnack+").unwrap();
    assert_eq!((n.target, n.sramecc, n.xnack), (gfx942, None, Some(true)));
    for t in TARGETS {
        let n = Target::by_hsa_name(t.name).unwrap();
        assert_eq!((n.target, n.xnack, n.sramecc), (t, None, None));
    }
    for bad in [
        "gfx1030:xnack+",
        "gfx942:sramecc",
        "gfx942:xnack+:xnack-",
        "gfx942:foo+",
    ] {
        let e = Target::by_hsa_name(bad).unwrap_err();
        assert!(matches!(e, HsaNameError::Feature(..)), "{bad}: {e}");
        assert!(e.to_string().contains(bad), "{e}");
    }
    assert!(matches!(
        Target::by_hsa_name("gfx9999:xnack-"),
        Err(HsaNameError::Target(_))
    ));
}

#[test]
fn lookups_find_every_row() {
    for t in TARGETS {
        assert_eq!(Target::by_name(t.name).unwrap(), t);
        assert_eq!(Target::by_name(&t.name.to_uppercase()).unwrap(), t);
        assert_eq!(Target::by_machine(t.machine).unwrap(), t);
        // The first row of a KFD version (gfx909's is gfx902's: amdkfd reports it so).
        let owner = Target::by_kfd_version(t.kfd_version).unwrap();
        assert!(
            owner == t || (owner.kfd_version == t.kfd_version && owner.name < t.name),
            "{t}: {owner}"
        );
    }
    assert_eq!(Target::by_machine(0), None);
    assert_eq!(Target::by_kfd_version(0), None);
}

#[test]
fn unknown_names_get_did_you_mean_and_the_list() {
    let last = TARGETS.last().unwrap().name;
    let typo = format!("{last}x");
    let e = Target::by_name(&typo).unwrap_err();
    assert_eq!(e.near.first(), Some(&last), "{e}");
    let msg = e.to_string();
    assert!(msg.contains(&format!("unknown target `{typo}`")), "{msg}");
    for t in TARGETS {
        assert!(msg.contains(t.name), "{msg}");
    }
    let far = Target::by_name("sm_90").unwrap_err();
    assert!(far.near.is_empty(), "{far}");
    assert!(!far.to_string().contains("did you mean"), "{far}");
}

#[test]
fn serde_by_name_round_trips_and_refuses_unknown_names() {
    for t in TARGETS {
        let json = serde_json::to_string(&TargetName(t)).unwrap();
        assert_eq!(json, format!("\"{}\"", t.name));
        let back: TargetName = serde_json::from_str(&json).unwrap();
        assert_eq!(back.0, t);
    }
    let e = serde_json::from_str::<TargetName>("\"gfx9999\"").unwrap_err();
    assert!(e.to_string().contains("unknown target `gfx9999`"), "{e}");
}

#[test]
fn unsupported_processors_name_what_their_users_run_them_as() {
    for r in UNSUPPORTED_RUN_AS {
        let chip = Target::by_name(r.chip).unwrap();
        let (runs_as, version, source) = chip.runs_as_hint().unwrap();
        assert_eq!(runs_as.name, r.runs_as);
        assert_eq!(
            chip.rocm_since, None,
            "{chip}: ROCm supports it, no override needed"
        );
        assert!(
            runs_as.rocm_since.is_some(),
            "{chip} runs as a supported row"
        );
        // The same instruction set: every DS op the kernels of the row it runs as use exists.
        assert_eq!(
            (chip.generation, chip.ds_features),
            (runs_as.generation, runs_as.ds_features),
            "{chip} as {runs_as}"
        );
        assert!(source.contains("issue #"), "{chip}: a source");
        assert_eq!(version, "9.0.0", "{chip}");
    }
    let apus: Vec<&str> = UNSUPPORTED_RUN_AS.iter().map(|r| r.chip).collect();
    assert_eq!(apus, ["gfx902", "gfx909", "gfx90c"]);
    assert_eq!(Target::by_name("gfx900").unwrap().runs_as_hint(), None);
}
