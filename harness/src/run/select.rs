//! Choosing what a run covers: `--op` patterns (exact mnemonics, legacy spellings or `*`/`?`
//! globs over the DS table's gfx11 and legacy names) and `--shard K/N` (a deterministic split of the selected
//! ops, so N machines together run each op exactly once).

use ds_isa::ds::{self, DsOp};
use std::fmt;

/// Why a selection could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SelectError {
    /// A pattern matches no op of the table.
    UnknownOp {
        pattern: String,
        suggestions: Vec<&'static str>,
    },
    /// A pattern matches only ops ds-harness does not run (the DS table's `hip` column: GDS-only
    /// ops cannot run from a compute kernel; a few are not modelled yet).
    NotRunnable { pattern: String, why: String },
    /// A pattern names an op the target does not have (another generation's, or one that needs
    /// a feature the target lacks).
    NotOnTarget { pattern: String, why: String },
    /// `--shard` is not `K/N` with 1 <= K <= N.
    BadShard(String),
    /// `--shard`'s numbers are whole numbers but past the largest shard count.
    ShardTooLarge(String),
    /// The pattern uses glob syntax this matcher does not have (`[...]` classes, `{a,b}`).
    UnsupportedGlob(String),
}

impl fmt::Display for SelectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectError::UnknownOp {
                pattern,
                suggestions,
            } => {
                write!(f, "--op {pattern}: no DS op matches")?;
                if !suggestions.is_empty() {
                    write!(f, " (did you mean {}?)", suggestions.join(", "))?;
                }
                write!(
                    f,
                    "; `ds-harness list` shows every op, and globs like `ds_add*` work"
                )
            }
            SelectError::NotRunnable { pattern, why } => write!(
                f,
                "--op {pattern}: matches only ops ds-harness does not run ({why})"
            ),
            SelectError::NotOnTarget { pattern, why } => write!(f, "--op {pattern}: {why}"),
            SelectError::UnsupportedGlob(pattern) => write!(
                f,
                "--op {pattern}: `[...]` classes and `{{a,b}}` alternatives are not supported; \
                 globs have `*` (any run) and `?` (one character), and --op may be repeated \
                 (e.g. --op 'ds_add*' --op 'ds_sub*')"
            ),
            SelectError::ShardTooLarge(spec) => write!(
                f,
                "--shard {spec}: at most {} shards (K and N at most that)",
                u32::MAX
            ),
            SelectError::BadShard(spec) => write!(
                f,
                "--shard {spec}: expected K/N with whole numbers 1 <= K <= N, e.g. --shard 2/4"
            ),
        }
    }
}

impl std::error::Error for SelectError {}

/// Matches `text` against a glob with `*` (any run) and `?` (one character), ASCII case-insensitive.
pub fn glob(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == b'?' || p[pi].eq_ignore_ascii_case(&t[ti])) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

/// The op of generation `gen` that `name` names as a command line takes it: the generation's own
/// spelling (`ds_read_b32` on gfx9), or the name the reports, case files and recordings use for
/// every generation (the DS table's row name, `ds_load_b32`), or any older spelling of an op the
/// generation has. `None` when no op of the generation goes by that name.
pub fn op_named_in(gen: ds::Generation, name: &str) -> Option<DsOp> {
    DsOp::from_name_in(gen, name)
        .or_else(|| DsOp::from_name(name).filter(|op| op.info().in_generation(gen)))
}

/// The runnable ops of generation `gen` the patterns select, in table order; every runnable op of
/// the generation when `patterns` is empty. Each pattern must select at least one runnable op; an
/// op of another generation is named as such.
pub fn select_ops(gen: ds::Generation, patterns: &[String]) -> Result<Vec<DsOp>, SelectError> {
    if patterns.is_empty() {
        return Ok(ds::runnable_ops(gen).collect());
    }
    let mut chosen = vec![false; ds::DS_TABLE.len()];
    for pattern in patterns {
        if pattern.contains(['[', ']', '{', '}']) {
            return Err(SelectError::UnsupportedGlob(pattern.clone()));
        }
        let matched: Vec<DsOp> = if pattern.contains(['*', '?']) {
            // Globs match the generation's names and the older ones it still reads, as exact
            // names do.
            DsOp::all(gen)
                .filter(|op| {
                    glob(pattern, op.name())
                        || op.info().legacy_name.is_some_and(|l| glob(pattern, l))
                })
                .collect()
        } else {
            match (op_named_in(gen, pattern), DsOp::from_name(pattern)) {
                (None, Some(op)) => {
                    return Err(SelectError::NotOnTarget {
                        pattern: pattern.clone(),
                        why: ds_isa::error::InstError::NotInGeneration { op, gen }.to_string(),
                    })
                }
                (found, _) => found.into_iter().collect(),
            }
        };
        if matched.is_empty() {
            return Err(SelectError::UnknownOp {
                pattern: pattern.clone(),
                suggestions: ds::suggest_in(gen, &pattern.replace(['*', '?'], ""), 3),
            });
        }
        let runnable: Vec<DsOp> = matched
            .iter()
            .copied()
            .filter(|&op| op.info().hip_runnable())
            .collect();
        if runnable.is_empty() {
            let op = matched[0];
            let why = op.info().hip_unsupported.unwrap_or("").to_string();
            return Err(SelectError::NotRunnable {
                pattern: pattern.clone(),
                why,
            });
        }
        for op in runnable {
            chosen[op as usize] = true;
        }
    }
    Ok(DsOp::all(gen).filter(|&op| chosen[op as usize]).collect())
}

/// The runnable ops of `target` the patterns select: [`select_ops`] for its generation, less
/// the ops the target lacks a feature for (a gfx10 target without the src2 feature has no src2
/// ops; CDNA 3's packed 16-bit adds are not CDNA 1's); an op named exactly that the target lacks
/// is refused naming the feature and the targets that have it, as is a selection left with none
/// of its ops on the target.
pub fn select_ops_on(
    target: &'static ds_isa::target::Target,
    patterns: &[String],
) -> Result<Vec<DsOp>, SelectError> {
    let gen = target.generation;
    if patterns.is_empty() {
        return Ok(ds::runnable_ops_on(target).collect());
    }
    let ops = select_ops(gen, patterns)?;
    for pattern in patterns.iter().filter(|p| !p.contains(['*', '?'])) {
        if let Some(op) = op_named_in(gen, pattern).filter(|op| !op.info().on(target)) {
            return Err(SelectError::NotOnTarget {
                pattern: pattern.clone(),
                why: ds_isa::error::InstError::NotOnTarget {
                    op,
                    isa: target.into(),
                }
                .to_string(),
            });
        }
    }
    let on: Vec<DsOp> = ops
        .iter()
        .copied()
        .filter(|op| op.info().on(target))
        .collect();
    match ops.first() {
        // A glob that selects ops of the generation, none of them on the target.
        Some(&op) if on.is_empty() => Err(SelectError::NotOnTarget {
            pattern: patterns.join(" "),
            why: ds_isa::error::InstError::NotOnTarget {
                op,
                isa: target.into(),
            }
            .to_string(),
        }),
        _ => Ok(on),
    }
}

/// One shard of N: `K/N`, 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, 1..=count.
    pub index: u32,
    /// Shards in all.
    pub count: u32,
}

impl Shard {
    /// Parses `K/N`.
    pub fn parse(spec: &str) -> Result<Shard, SelectError> {
        let bad = || SelectError::BadShard(spec.to_string());
        let (k, n) = spec.split_once('/').ok_or_else(bad)?;
        let number = |t: &str| -> Result<u32, SelectError> {
            let t = t.trim();
            if t.is_empty() || !t.chars().all(|c| c.is_ascii_digit()) {
                return Err(bad());
            }
            t.parse()
                .map_err(|_| SelectError::ShardTooLarge(spec.to_string()))
        };
        let (index, count) = (number(k)?, number(n)?);
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The ops of this shard: every N-th op of `ops` starting at the K-th (ops keep their order,
    /// so neighbouring ops, which cost about the same, spread over the shards).
    pub fn take(&self, ops: &[DsOp]) -> Vec<DsOp> {
        ops.iter()
            .enumerate()
            .filter(|(i, _)| *i as u32 % self.count == self.index - 1)
            .map(|(_, &op)| op)
            .collect()
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ds_isa::gen::Generation;

    #[test]
    fn globs_match_like_a_shell() {
        assert!(glob("ds_add*", "ds_add_rtn_u32"));
        assert!(glob("*rtn*64", "ds_max_rtn_f64"));
        assert!(glob("ds_load_?8", "ds_load_u8"));
        assert!(!glob("ds_add*", "ds_sub_u32"));
        assert!(!glob("ds_load_?8", "ds_load_u16"));
    }

    #[test]
    fn patterns_select_runnable_ops_in_table_order() {
        let ops = select_ops(
            Generation::Gfx11,
            &["ds_add_u32".into(), "ds_read_b32".into()],
        )
        .unwrap();
        let names: Vec<&str> = ops.iter().map(|o| o.name()).collect();
        assert_eq!(names, ["ds_add_u32", "ds_load_b32"]);
        let all = select_ops(Generation::Gfx11, &["ds_add*".into()]).unwrap();
        assert!(all.len() >= 6 && all.iter().all(|o| o.name().starts_with("ds_add")));
        let every: Vec<DsOp> = ds::runnable_ops(Generation::Gfx11).collect();
        assert_eq!(
            select_ops(Generation::Gfx11, &["ds_*".into()]).unwrap(),
            every
        );
    }

    #[test]
    fn an_unknown_op_is_refused_with_suggestions() {
        let err = select_ops(Generation::Gfx11, &["ds_add_u3".into()]).unwrap_err();
        assert!(err.to_string().contains("did you mean ds_add_u32"), "{err}");
        let err = select_ops(Generation::Gfx11, &["ds_gws_init".into()]).unwrap_err();
        assert!(matches!(err, SelectError::NotRunnable { .. }), "{err}");
    }

    #[test]
    fn a_targets_selection_takes_the_ops_its_features_give() {
        use ds_isa::target::Target;
        let (with, without) = (
            Target::by_name("gfx1010").unwrap(),
            Target::by_name("gfx1030").unwrap(),
        );
        let src2 = |ops: &[DsOp]| {
            ops.iter()
                .filter(|o| matches!(o.info().family, ds::Family::Src2(_)))
                .count()
        };
        let (a, b) = (
            select_ops_on(with, &[]).unwrap(),
            select_ops_on(without, &[]).unwrap(),
        );
        assert_eq!((a.len(), src2(&a), b.len(), src2(&b)), (147, 31, 116, 0));
        // A glob takes what the target has; an exact name it lacks is refused naming the feature.
        assert_eq!(
            src2(&select_ops_on(with, &["ds_*src2*".into()]).unwrap()),
            31
        );
        assert!(select_ops_on(without, &["ds_*".into()]).unwrap() == b);
        let e = select_ops_on(without, &["ds_add_src2_u32".into()]).unwrap_err();
        assert!(e.to_string().contains("needs the src2 feature"), "{e}");
        assert!(e.to_string().contains("gfx1010"), "{e}");
    }

    #[test]
    fn a_gfx12_op_is_refused_as_another_generations_not_a_crash() {
        let e = select_ops(Generation::Gfx11, &["ds_cond_sub_rtn_u32".to_string()]).unwrap_err();
        assert!(e.to_string().contains("(it is gfx12 and gfx12.5)"), "{e}");
        // A glob over gfx11 names does not pick up gfx12-only ops.
        let ops = select_ops(Generation::Gfx11, &["ds_m*_num*".to_string()]);
        assert!(ops.is_err(), "{ops:?}");
    }

    #[test]
    fn gfx12_selections_take_gfx12_ops_and_old_names() {
        let gen = ds::Generation::Gfx12;
        let all = select_ops(gen, &[]).unwrap();
        assert_eq!(all.len(), 123);
        let ops = select_ops(gen, &["ds_min_f32".into(), "ds_cond_sub*".into()]).unwrap();
        let names: Vec<&str> = ops.iter().map(|o| o.name()).collect();
        // Table order: the gfx12-only rows come in gfx12 opcode order.
        assert_eq!(
            names,
            ["ds_min_num_f32", "ds_cond_sub_u32", "ds_cond_sub_rtn_u32"]
        );
        let e = select_ops(gen, &["ds_wrap_rtn_b32".into()]).unwrap_err();
        assert!(
            e.to_string().contains("(it is gfx9, gfx10 and gfx11)"),
            "{e}"
        );
    }

    /// The names a run's summary, JSON and case files use (the table's row names) select their
    /// op on every target, as do the target's own spellings (issue 33 M2: `--target gfx942 --op
    /// ds_load_b32` was refused though gfx942's reports name it so).
    #[test]
    fn every_target_takes_the_names_its_reports_use_and_its_own() {
        for t in ds_isa::target::TARGETS {
            for op in ds::runnable_ops_on(t) {
                for name in [op.name(), op.mnemonic(t.generation)] {
                    let got = select_ops_on(t, &[name.to_string()]);
                    assert_eq!(got, Ok(vec![op]), "{t} --op {name}");
                }
            }
        }
    }

    #[test]
    fn shards_partition_the_ops() {
        let ops: Vec<DsOp> = ds::runnable_ops(Generation::Gfx11).collect();
        let mut seen: Vec<DsOp> = (1..=3)
            .flat_map(|k| Shard { index: k, count: 3 }.take(&ops))
            .collect();
        seen.sort();
        assert_eq!(seen, ops);
        for bad in ["0/2", "3/2", "1", "a/b", "1/0", "-1/2", ""] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Shard::parse("2/4").unwrap(), Shard { index: 2, count: 4 });
    }
}
