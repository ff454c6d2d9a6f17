//! The fidelity matrix: several devices' run results side by side, one row per op, one column per
//! device, one fidelity class per cell with its counts ([`crate::fidelity`]); rendered as
//! markdown, JSON, and an SVG heatmap (docs/design-notes.md, "Devices beyond this process").

use crate::fidelity::{self, Class, Counts, CLASSES};
use crate::run::report::{code, md, xml};
use ds_isa::ds::DsOp;
use serde::Serialize;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// One device's results file.
#[derive(Clone, Debug, Serialize)]
pub struct Column {
    /// The device's name.
    pub device: String,
    /// Its version (an external device's hello), or the backend.
    pub version: String,
    /// The target it ran (`meta.target`), so the targets of one matrix stand side by side.
    pub target: String,
    /// What it was compared with: `model`, or the recording directory (`run --against`).
    pub reference: String,
    /// The results file.
    pub file: String,
}

/// One op across the devices.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The op's mnemonic.
    pub op: String,
    /// One cell per column; `None` where that run did not include the op.
    pub cells: Vec<Option<Cell>>,
    /// Why the model of the op is inferred, when a run's results say so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inferred: Option<String>,
}

/// One op on one device.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    /// The op's class on this device: the worst class of its cases.
    pub class: Class,
    /// Cases per class.
    pub counts: Counts,
}

/// The matrix.
#[derive(Clone, Debug, Serialize)]
pub struct Matrix {
    /// The devices, in the order given.
    pub columns: Vec<Column>,
    /// The ops, in DS-table order.
    pub rows: Vec<Row>,
}

/// Why a results file cannot go into the matrix; each message names the file and the fix.
#[derive(Debug)]
pub struct MatrixError(pub String);

impl std::fmt::Display for MatrixError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MatrixError {}

/// Reads `ds-harness run --json` files into a matrix.
pub fn from_files(paths: &[impl AsRef<Path>]) -> Result<Matrix, MatrixError> {
    let mut runs = Vec::new();
    for p in paths {
        let p = p.as_ref();
        let text = crate::input::read_text(p, crate::input::MAX_RESULTS_BYTES)
            .map_err(|e| MatrixError(format!("cannot read {}: {e}", p.display())))?;
        let v: Value = serde_json::from_str(&text).map_err(|e| {
            MatrixError(format!(
                "{} is not JSON ({e}): give the files `ds-harness run --json FILE` writes",
                p.display()
            ))
        })?;
        runs.push((p.display().to_string(), v));
    }
    from_results(&runs)
}

/// Builds the matrix from parsed results, each with its file name.
pub fn from_results(runs: &[(String, Value)]) -> Result<Matrix, MatrixError> {
    let mut columns = Vec::new();
    let mut per_run: Vec<Vec<(String, Counts)>> = Vec::new();
    let mut inferred: Vec<(String, String)> = Vec::new();
    for (file, v) in runs {
        let bad = |what: &str| {
            MatrixError(format!(
                "{file}: {what}; give the results `ds-harness run --json FILE` writes (format 1 \
                 with fidelity classes)"
            ))
        };
        let meta = v.get("meta").ok_or_else(|| bad("no `meta`"))?;
        let text = |k: &str| meta.get(k).and_then(Value::as_str).map(String::from);
        columns.push(Column {
            device: text("device").ok_or_else(|| bad("no `meta.device`"))?,
            version: text("device_version")
                .or_else(|| text("backend").map(|b| format!("backend {b}")))
                .unwrap_or_default(),
            target: text("target").unwrap_or_default(),
            reference: text("against").unwrap_or_else(|| "model".into()),
            file: file.clone(),
        });
        let ops = v
            .get("ops")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("no `ops` list"))?;
        let mut cells: Vec<(String, Counts)> = Vec::new();
        for o in ops {
            let name = o
                .get("op")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("an op without a name"))?;
            if DsOp::from_name(name).is_none() {
                return Err(bad(&format!(
                    "op `{}` is not a DS op of the table",
                    crate::run::report::terminal(&ds_devices::exec::text::cut(name, 64))
                )));
            }
            let f = o
                .get("fidelity")
                .ok_or_else(|| bad(&format!("op {name} has no `fidelity` counts")))?;
            let counts: Counts = serde_json::from_value(f.clone())
                .map_err(|e| bad(&format!("op {name}: bad `fidelity` ({e})")))?;
            // A row per op and wave size: wave64 rows are `<op> wave64` (no `wave`: wave32).
            let label = match o.get("wave").and_then(Value::as_u64) {
                Some(n) if n != 32 => format!("{name} wave{n}"),
                _ => name.to_string(),
            };
            // One row per op and wave size: a second one would hide behind the first.
            if cells.iter().any(|(l, _)| *l == label) {
                return Err(bad(&format!("op {label} has two rows")));
            }
            if let Some(why) = o.get("inferred").and_then(Value::as_str) {
                inferred.push((label.clone(), why.to_string()));
            }
            cells.push((label, counts));
        }
        // The whole file's arithmetic, as `merge` checks it: rows, variants, totals.
        let report: crate::run::report::Report = serde_json::from_value(v.clone())
            .map_err(|e| bad(&format!("not ds-harness results ({e})")))?;
        crate::merge::check_counts(&report).map_err(|why| {
            bad(&format!(
                "{why}: the file was edited or is not what `ds-harness run --json` wrote"
            ))
        })?;
        per_run.push(cells);
    }
    let mut names: Vec<String> = per_run
        .iter()
        .flat_map(|r| r.iter().map(|(n, _)| n.clone()))
        .collect();
    // DS table order (every generation's rows: `op as usize` is the row), unknown names last.
    let order = |n: &String| {
        DsOp::from_name(n.split(' ').next().unwrap_or(n)).map_or(usize::MAX, |op| op as usize)
    };
    names.sort_by(|a, b| order(a).cmp(&order(b)).then(a.cmp(b)));
    names.dedup();
    let rows = names
        .into_iter()
        .map(|op| Row {
            cells: per_run
                .iter()
                .map(|r| {
                    r.iter().find(|(n, _)| *n == op).map(|(_, c)| Cell {
                        class: fidelity::worst(c).unwrap_or(Class::NotModelled),
                        counts: c.clone(),
                    })
                })
                .collect(),
            inferred: inferred
                .iter()
                .find(|(l, _)| *l == op)
                .map(|(_, w)| w.clone()),
            op,
        })
        .collect();
    Ok(Matrix { columns, rows })
}

impl Cell {
    /// The cell's text: `exact 160`, or the worst class and its share, `mismatch 5 of 160`.
    pub fn short(&self) -> String {
        let total: usize = self.counts.values().sum();
        let n = self.counts.get(&self.class).copied().unwrap_or(0);
        if n == total {
            format!("{} {n}", self.class)
        } else {
            format!("{} {n} of {total}", self.class)
        }
    }
}

impl Matrix {
    /// Per column: how many ops landed in each class.
    pub fn ops_by_class(&self) -> Vec<Counts> {
        (0..self.columns.len())
            .map(|i| {
                let mut c = Counts::new();
                for r in &self.rows {
                    if let Some(cell) = &r.cells[i] {
                        *c.entry(cell.class).or_default() += 1;
                    }
                }
                c
            })
            .collect()
    }

    /// The matrix as JSON (pretty, newline-terminated).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("the matrix serialises");
        s.push('\n');
        s
    }

    /// The matrix as a GitHub-flavoured markdown table, with the devices and a legend.
    pub fn to_markdown(&self) -> String {
        let mut s = String::from("## Fidelity matrix\n\n");
        for (i, c) in self.columns.iter().enumerate() {
            let _ = writeln!(
                s,
                "{}. **{}** ({}{}), against the {}: `{}`",
                i + 1,
                md(&c.device),
                md(&target_part(c)),
                md(&c.version),
                md(&c.reference),
                md(&c.file)
            );
        }
        s.push_str("\nEach cell: the op's class (the worst of its cases') and its cases; ");
        s.push_str("classes from best to worst: ");
        s.push_str(
            &CLASSES
                .iter()
                .map(|c| c.label())
                .collect::<Vec<_>>()
                .join(", "),
        );
        s.push_str(".\n\n| op |");
        for (i, c) in self.columns.iter().enumerate() {
            let _ = write!(s, " {}. {}{} |", i + 1, md(&c.device), md(&target_head(c)));
        }
        s.push_str("\n|---|");
        s.push_str(&"---|".repeat(self.columns.len()));
        s.push('\n');
        for r in &self.rows {
            let _ = write!(s, "| {} |", code(&r.op));
            if r.inferred.is_some() {
                s.truncate(s.len() - 2);
                s.push_str(" (model inferred) |");
            }
            for cell in &r.cells {
                match cell {
                    None => s.push_str(" — |"),
                    Some(c) if c.counts.len() <= 1 => {
                        let _ = write!(s, " {} |", c.short());
                    }
                    Some(c) => {
                        let _ = write!(s, " **{}** ({}) |", c.class, fidelity::describe(&c.counts));
                    }
                }
            }
            s.push('\n');
        }
        s.push_str("| **ops by class** |");
        for c in self.ops_by_class() {
            let _ = write!(s, " {} |", fidelity::describe(&c));
        }
        s.push('\n');
        s
    }

    /// The matrix as an SVG heatmap: op names down the left, one column per device (name and
    /// version on top), one coloured cell per op and device with its class and counts (the full
    /// counts in the cell's tooltip), and a legend of the classes.
    pub fn to_svg(&self) -> String {
        const ROW: f64 = 18.0;
        const COL: f64 = 220.0;
        const PAD: f64 = 10.0;
        const HEAD: f64 = 70.0;
        let label_w = 7.2 * self.rows.iter().map(|r| r.op.len()).max().unwrap_or(8) as f64 + 16.0;
        let width = PAD * 2.0 + label_w + COL * self.columns.len() as f64;
        let legend_y = HEAD + ROW * self.rows.len() as f64 + 20.0;
        let legend_rows = CLASSES.len().div_ceil(3);
        let height = legend_y + 22.0 * legend_rows as f64 + PAD;
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">"#
        );
        let _ = writeln!(s, "<title>ds-harness fidelity matrix</title>");
        let _ = writeln!(
            s,
            r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>"##
        );
        let _ = writeln!(
            s,
            r#"<text x="{PAD}" y="22" font-size="16" font-weight="bold">ds-harness fidelity matrix</text>"#
        );
        for (i, c) in self.columns.iter().enumerate() {
            let x = PAD + label_w + COL * i as f64 + 4.0;
            let _ = writeln!(
                s,
                r##"<g class="device"><title>{} ({}), against the {}: {}</title><text x="{x}" y="{}" font-weight="bold">{}</text><text x="{x}" y="{}" font-size="10" fill="#555555">{}</text></g>"##,
                xml(&c.device),
                xml(&c.version),
                xml(&c.reference),
                xml(&c.file),
                HEAD - 26.0,
                xml(&clip(&c.device, 26)),
                HEAD - 10.0,
                xml(&clip(
                    &format!("{}{} · vs {}", target_part(c), c.version, c.reference),
                    36
                )),
            );
        }
        for (j, r) in self.rows.iter().enumerate() {
            let y = HEAD + ROW * j as f64;
            let _ = writeln!(
                s,
                r#"<text x="{PAD}" y="{}" font-family="DejaVu Sans Mono, monospace">{}</text>"#,
                y + ROW - 5.0,
                xml(&r.op)
            );
            for (i, cell) in r.cells.iter().enumerate() {
                let x = PAD + label_w + COL * i as f64;
                let Some(c) = cell else {
                    let _ = writeln!(
                        s,
                        r##"<rect class="cell" data-op="{}" data-column="{i}" x="{x}" y="{y}" width="{}" height="{}" fill="#ffffff" stroke="#dddddd"><title>not run</title></rect>"##,
                        xml(&r.op),
                        COL - 2.0,
                        ROW - 2.0
                    );
                    continue;
                };
                let ink = match c.class {
                    Class::Exact | Class::Mismatch | Class::Crashed => "#ffffff",
                    _ => "#000000",
                };
                let _ = writeln!(
                    s,
                    r#"<rect class="cell" data-op="{}" data-column="{i}" data-class="{}" x="{x}" y="{y}" width="{}" height="{}" fill="{}"><title>{} on {}: {}</title></rect><text x="{}" y="{}" fill="{ink}" font-size="11">{}</text>"#,
                    xml(&r.op),
                    c.class.key(),
                    COL - 2.0,
                    ROW - 2.0,
                    c.class.colour(),
                    xml(&r.op),
                    xml(&self.columns[i].device),
                    xml(&fidelity::describe(&c.counts)),
                    x + 5.0,
                    y + ROW - 6.0,
                    xml(&c.short())
                );
            }
        }
        for (k, c) in CLASSES.iter().enumerate() {
            let x = PAD + (k % 3) as f64 * 160.0;
            let y = legend_y + 22.0 * (k / 3) as f64;
            let _ = writeln!(
                s,
                r##"<g class="legend"><rect x="{x}" y="{y}" width="14" height="14" fill="{}" stroke="#999999"/><text x="{}" y="{}">{}</text></g>"##,
                c.colour(),
                x + 20.0,
                y + 11.0,
                c.label()
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

/// `<target>, ` before a column's version, when its run named its target (raw text: escape it for
/// where it goes).
fn target_part(c: &Column) -> String {
    if c.target.is_empty() {
        String::new()
    } else {
        format!("{}, ", c.target)
    }
}

/// ` (<target>)` after a column's device in the table's header, when its run named its target.
fn target_head(c: &Column) -> String {
    if c.target.is_empty() {
        String::new()
    } else {
        format!(" ({})", c.target)
    }
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max - 1).collect();
    format!("{cut}…")
}
