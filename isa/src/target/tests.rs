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
    for t in TARGETS {
        assert!(kfd.insert(t.kfd_version), "{} twice", t.kfd_version);
    }
}

#[test]
fn generic_rows_cover_their_generation_and_no_device_reports_them() {
    for g in GENERIC_TARGETS {
        assert!(g.is_generic() && g.generic.is_none() && g.kind == Kind::Generic);
        assert_eq!(g.name, format!("{}-generic", g.generation), "{g}");
        assert_eq!(g.kfd_version, 0, "{g}: no GPU reports a generic target");
        let members: Vec<_> = g.members().collect();
        assert!(!members.is_empty(), "{g} covers no processor");
        for m in &members {
            assert_eq!(m.generation, g.generation, "{m} in {g}");
            assert_eq!(m.generic_target(), Some(g));
            assert!(
                m.wave_sizes == g.wave_sizes && m.lds_bytes == g.lds_bytes,
                "{m}: {g} runs with the family's wave sizes and LDS"
            );
        }
        assert_eq!(Target::by_name(g.name).unwrap(), g);
        assert_eq!(Target::by_machine(g.machine).unwrap(), g);
        assert_eq!(Target::by_kfd_version(g.kfd_version), None);
    }
    for t in TARGETS {
        assert!(!t.is_generic() && t.kind != Kind::Generic, "{t}");
        // gfx9 and gfx10 rows name none yet (LLVM's gfx9-generic, gfx9-4-generic,
        // gfx10-1-generic and gfx10-3-generic are not rows of the table).
        let Some(g) = t.generic_target() else {
            assert!(t.generic.is_none(), "{t}: its generic row is missing");
            assert!(
                matches!(t.generation, Generation::Gfx9 | Generation::Gfx10),
                "{t} has no generic target"
            );
            continue;
        };
        assert!(g.members().any(|m| m == t));
    }
    assert!(supported_list().contains("generic: "));
}

#[test]
fn kfd_version_spells_the_name() {
    // gfx_target_version is major * 10000 + minor * 100 + stepping of the name's digits
    // (minor and stepping one hex digit each).
    for t in TARGETS {
        let v = t.kfd_version;
        let digits = t.name.strip_prefix("gfx").expect("names start with gfx");
        let spelled = format!("{}{:x}{:x}", v / 10000, v / 100 % 100, v % 100);
        assert_eq!(digits, spelled, "{}", t.name);
    }
}

#[test]
fn rows_agree_with_their_generation() {
    for t in TARGETS {
        let prefix = t.generation.name();
        assert!(
            t.name.starts_with(prefix) && t.name.len() == prefix.len() + 2,
            "{} is not a {prefix} processor name",
            t.name
        );
        // gfx9 runs wave64 only; RDNA runs both (wave32 the default).
        let waves: &[u32] = match t.generation {
            Generation::Gfx9 => &[64],
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
/// `reference/tests/llvm_oracle.rs`): src2 up to gfx908 and on gfx1010-gfx1013; f64 add and acc
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
        ["gfx900", "gfx906", "gfx908", "gfx1010", "gfx1011", "gfx1012", "gfx1013"]
    );
    assert_eq!(with(DsFeatures::F64), ["gfx90a", "gfx942", "gfx950"]);
    assert_eq!(with(DsFeatures::ACC), ["gfx90a", "gfx942", "gfx950"]);
    assert_eq!(with(DsFeatures::TR), ["gfx950"]);
    assert_eq!(
        with(DsFeatures::PK16),
        ["gfx1200", "gfx1201", "gfx942", "gfx950"]
    );
    assert_eq!(
        TARGETS
            .iter()
            .filter(|t| !t.ds_features.contains(DsFeatures::UNALIGNED))
            .map(|t| t.name)
            .collect::<Vec<_>>(),
        ["gfx90a", "gfx942", "gfx950"]
    );
    let gds = gfx9_10(DsFeatures::GDS);
    assert!(!gds.contains(&"gfx90a") && gds.contains(&"gfx908") && gds.contains(&"gfx1036"));
    assert_eq!(
        gfx9_10(DsFeatures::GWS).len(),
        17,
        "every gfx9 and gfx10 target has GWS"
    );
}

#[test]
fn target_id_features_and_e_flags() {
    // e_flags as llvm-mc-19/22 write them (target_llvm.rs checks every row against both).
    for (name, flags) in [
        ("gfx900", 0x12c),
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
    ] {
        assert_eq!(Target::by_name(name).unwrap().e_flags(), flags, "{name}");
    }
    for g in GENERIC_TARGETS {
        assert_eq!(g.e_flags(), u32::from(g.machine) | 1 << 24);
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
        assert_eq!(Target::by_kfd_version(t.kfd_version).unwrap(), t);
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
