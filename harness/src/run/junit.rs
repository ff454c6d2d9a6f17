//! The results as JUnit XML (`--junit`): the schema CI systems read, one `<testsuite>` per op and
//! wave size, one `<testcase>` per kernel variant.

use super::report::{xml, Mismatch, OpResult, Report};
use std::fmt::Write as _;

impl Report {
    /// JUnit XML: a `<testsuite>` per op, a `<testcase>` per variant; disagreements are
    /// `<failure>`s listing each case's file and replay command, device errors `<error>`s, and a
    /// variant whose every case was skipped is `<skipped>`.
    pub fn to_junit(&self) -> String {
        let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let t = self.totals;
        let failures: usize = self
            .ops
            .iter()
            .map(|o| o.variants.iter().filter(|v| v.disagree > 0).count())
            .sum();
        let errors: usize = self
            .ops
            .iter()
            .map(|o| o.variants.iter().filter(|v| v.error.is_some()).count())
            .sum();
        let tests: usize = self.ops.iter().map(|o| o.variants.len()).sum();
        // A run that compared no case fails one more test, so a CI reading only the JUnit
        // file does not take it for a pass.
        let nothing = self.nothing_compared_note();
        let extra = usize::from(nothing.is_some());
        let _ = writeln!(
            s,
            "<testsuites name=\"ds-harness {}\" tests=\"{}\" failures=\"{}\" errors=\"{errors}\">",
            xml(&self.meta.backend),
            tests + extra,
            failures + extra
        );
        let _ = writeln!(
            s,
            "  <!-- {} cases: {} agree, {} disagree, {} skipped, {} compared -->",
            t.cases,
            t.agree,
            t.disagree,
            t.skipped,
            t.cases_compared()
        );
        if let Some(n) = nothing {
            let _ = writeln!(
                s,
                "  <testsuite name=\"ds-harness run\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\">\n    <testcase classname=\"ds-harness.run\" name=\"cases compared\">\n      <failure message=\"{}\" type=\"nothing-compared\"/>\n    </testcase>\n  </testsuite>",
                xml(&n)
            );
        }
        for o in &self.ops {
            let f = o.variants.iter().filter(|v| v.disagree > 0).count();
            let e = o.variants.iter().filter(|v| v.error.is_some()).count();
            let sk = o
                .variants
                .iter()
                .filter(|v| v.cases > 0 && v.skipped == v.cases)
                .count();
            let _ = writeln!(
                s,
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" errors=\"{e}\" skipped=\"{sk}\">",
                xml(&suite_name(o)),
                o.variants.len()
            );
            s += &self.override_properties();
            for v in &o.variants {
                let _ = write!(
                    s,
                    "    <testcase classname=\"ds-harness.{}\" name=\"{} {}\"",
                    xml(&o.op),
                    xml(&o.op),
                    xml(&v.tag)
                );
                // Undecided cases are no failures (they are listed in the JSON).
                let mine: Vec<&Mismatch> = o
                    .mismatches
                    .iter()
                    .filter(|m| m.variant == v.tag && !m.undecided)
                    .collect();
                // What the run did not judge, and a model that is inferred, are said beside the
                // testcase (never as a pass or a failure).
                let mut said = Vec::new();
                if v.skipped > 0 && v.skipped < v.cases {
                    let reasons: Vec<&str> = o.skip_reasons.keys().map(String::as_str).collect();
                    said.push(format!(
                        "{} of {} cases not judged: {}",
                        v.skipped,
                        v.cases,
                        reasons.join("; ")
                    ));
                }
                if let Some(why) = &o.inferred {
                    said.push(format!("model {why}"));
                }
                if v.error.is_none()
                    && mine.is_empty()
                    && !(v.cases > 0 && v.skipped == v.cases)
                    && said.is_empty()
                {
                    s.push_str("/>\n");
                    continue;
                }
                s.push_str(">\n");
                if let Some(err) = &v.error {
                    let _ = writeln!(s, "      <error message=\"{}\"/>", xml(err));
                }
                if !mine.is_empty() {
                    let _ = writeln!(
                        s,
                        "      <failure message=\"{} of {} cases disagree with the model ({})\" type=\"disagreement\">",
                        v.disagree,
                        v.cases,
                        xml(&v.inst)
                    );
                    for m in mine {
                        let _ = writeln!(s, "case {}", xml(&m.id));
                        if let Some(p) = &m.path {
                            let _ = writeln!(s, "  file: {}", xml(p));
                        }
                        let _ = writeln!(s, "  replay: {}", xml(&m.replay));
                        if let Some(n) = &m.note {
                            let _ = writeln!(s, "  {}", xml(n));
                        }
                        for d in &m.differences {
                            let _ = writeln!(s, "  {}", xml(&d.to_string()));
                        }
                        if m.total_differences > m.differences.len() {
                            let _ = writeln!(
                                s,
                                "  ... {} more",
                                m.total_differences - m.differences.len()
                            );
                        }
                    }
                    s.push_str("      </failure>\n");
                }
                if v.cases > 0 && v.skipped == v.cases {
                    let reasons: Vec<&str> = o.skip_reasons.keys().map(String::as_str).collect();
                    let _ = writeln!(
                        s,
                        "      <skipped message=\"{}\"/>",
                        xml(&reasons.join("; "))
                    );
                }
                if !said.is_empty() {
                    let _ = writeln!(
                        s,
                        "      <system-out>{}</system-out>",
                        xml(&said.join("\n"))
                    );
                }
                s.push_str("    </testcase>\n");
            }
            s.push_str("  </testsuite>\n");
        }
        s.push_str("</testsuites>\n");
        s
    }
}

/// The JUnit suite of an op's row: the mnemonic, with the wave size for wave64 rows
/// (`ds_add_u32 wave64`).
impl Report {
    /// The override statement as JUnit `<properties>` of a test suite (the target it ran as, the
    /// chip, where the chip's name came from, and the override), none without an override.
    fn override_properties(&self) -> String {
        let Some(o) = &self.meta.overridden else {
            return String::new();
        };
        let mut s = String::from("    <properties>\n");
        for (k, v) in [
            ("target", self.meta.target.as_str()),
            ("chip", &o.chip),
            ("chip_source", &o.chip_source),
            ("override", &o.by),
        ] {
            let _ = writeln!(s, "      <property name=\"{k}\" value=\"{}\"/>", xml(v));
        }
        s + "    </properties>\n"
    }
}

fn suite_name(o: &OpResult) -> String {
    if o.wave.is_wave32() {
        o.op.clone()
    } else {
        format!("{} {}", o.op, o.wave)
    }
}
