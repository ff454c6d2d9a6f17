//! Legal outcomes: whether a device result the model did not predict is still one the hardware may
//! produce, and which reading of which open question explains it.
//!
//! The hardware is free (RDNA3 ISA guide, "Data Share Operations": lanes of one instruction that
//! hit one address are serialised in an unspecified order; LLVM AMDGPUUsage memory model: no
//! ordering among the lanes of one instruction) to run the lanes of one instruction that touch
//! overlapping bytes in any order, which decides the winning store and the values same-address
//! atomics return (ASSUMPTIONS.md A4); the guides' prose leaves the winner of a `ds_permute_b32`
//! collision open (S4); and the model documents alternatives for float min/max, the NaN a float
//! add returns, the default NaN, compare-store results and the bf16 denormal switch (F1-F4, F6,
//! N3), and the record allows more than one reading of the BVH stack ops (B2, B7, B9). Each
//! alternative is a named reading of its question ([`super::readings`]): the check
//! accepts the readings whose standing is `model` or `legal`, names the reading a device followed
//! when it was not the model's, and names the `disagreement` reading a mismatch matches. Every
//! other difference is a mismatch.
//!
//! The check runs per group of lanes with overlapping footprints: the ascending and descending
//! orders first, with the model's results and then with each accepted combination of readings;
//! then, for a group on one element, a polynomial decision (`decide`: an Euler trail through the
//! values the returns pin, or the few values a selection op can leave); then a search
//! (`search`), pruning on each lane's returned value, merging interchangeable lanes, remembering
//! failed states and giving up after a budget ([`Verdict::Undecided`]: an order-dependent update
//! of many lanes without returns, such as 64 `ds_rsub_u32` on one address, is a subset-sum
//! question no polynomial check answers).

use super::fast_hash::FastSet;
use super::readings::{self, Allowed, Collision, LaneOrder, ReadingId, Rules, Use};
use super::{Plan, Unmodelled};
use crate::wave::{Case, Outcome, Variant};
use ds_isa::ds::Family;
use ds_isa::target::Target;
use groups::{describe, groups, Group};
use named::{disagreements, followed, tally_with};
pub use named::{name_readings, tally, Agreement, Tally, TALLY_BUDGET};
use search::Search;

mod decide;
mod groups;
mod named;
mod search;

/// Search steps (lane executions) per group of overlapping lanes before the answer is
/// [`Verdict::Undecided`].
pub const BUDGET: usize = 200_000;

/// Which lane order explains a device result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Explanation {
    /// Lanes in ascending order: the model's own order.
    AscendingLanes,
    /// Every group of lanes sharing bytes ran highest lane first.
    DescendingLanes,
    /// This order of the active lanes (lanes sharing no bytes with others are independent, so the
    /// groups are listed one after another, each in the order it ran).
    Order(Vec<u8>),
}

impl std::fmt::Display for Explanation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Explanation::AscendingLanes => f.write_str("ascending lane order"),
            Explanation::DescendingLanes => f.write_str("descending lane order"),
            Explanation::Order(o) => {
                let lanes: Vec<String> = o.iter().map(u8::to_string).collect();
                write!(f, "lane order {}", lanes.join(","))
            }
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Legal {
                order,
                float_alternatives,
                readings,
            } => {
                write!(f, "legal: {order}")?;
                if !readings.is_empty() {
                    write!(f, ", following {}", name_readings(readings))?;
                }
                if !float_alternatives.is_empty() {
                    let lanes: Vec<String> = float_alternatives.iter().map(u8::to_string).collect();
                    write!(f, " (lanes {} took another reading)", lanes.join(","))?;
                }
                Ok(())
            }
            Verdict::Mismatch(why) => write!(f, "mismatch: {why}"),
            Verdict::Undecided(why) => write!(f, "undecided: {why}"),
        }
    }
}

/// The answer for one device outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// One of the legal outcomes: the order, the lanes whose result took another accepted
    /// reading than the model's, and the readings the device followed where they are not the
    /// model's (question, reading; empty when the model's readings explain it).
    Legal {
        /// The lane order.
        order: Explanation,
        /// Lanes (ascending) where a per-lane reading other than the model's was taken.
        float_alternatives: Vec<u8>,
        /// The readings followed instead of the model's, in ASSUMPTIONS.md order.
        readings: Vec<ReadingId>,
    },
    /// No legal outcome explains the device result; says where it first differs, and which
    /// disagreement reading explains it if one does.
    Mismatch(String),
    /// The search budget ran out before an explanation was found or ruled out.
    Undecided(String),
}

impl Verdict {
    /// The model's own outcome.
    pub fn model() -> Verdict {
        Verdict::Legal {
            order: Explanation::AscendingLanes,
            float_alternatives: vec![],
            readings: vec![],
        }
    }

    /// Accepted as legal.
    pub fn is_legal(&self) -> bool {
        matches!(self, Verdict::Legal { .. })
    }
}

/// Checks a device `outcome` of `variant` on `case` on `target` against every legal outcome (the
/// target's rules: [`super::Plan::new`]), naming the readings it followed, or the disagreement
/// reading a mismatch matches.
pub fn check(
    target: &Target,
    variant: &Variant,
    case: &Case,
    device: &Outcome,
) -> Result<Verdict, Unmodelled> {
    check_with_budget(target, variant, case, device, BUDGET)
}

/// [`check`] with a given search budget (lane steps per group of overlapping lanes).
pub fn check_with_budget(
    target: &Target,
    variant: &Variant,
    case: &Case,
    device: &Outcome,
    budget: usize,
) -> Result<Verdict, Unmodelled> {
    let verdict = check_allowed(target, variant, case, device, Allowed::Accepted, budget)?;
    Ok(match verdict {
        Verdict::Legal {
            order,
            float_alternatives,
            ..
        } if !(order == Explanation::AscendingLanes && float_alternatives.is_empty())
            || super::execute_variant(target, variant, case)? != *device =>
        {
            let tallies = tally_with(target, variant, case, device, Agreement::Legal, budget)?;
            Verdict::Legal {
                order,
                float_alternatives,
                readings: followed(&tallies),
            }
        }
        Verdict::Mismatch(why) => {
            let tallies = tally_with(target, variant, case, device, Agreement::No, budget)?;
            let matched = disagreements(&tallies);
            if matched.is_empty() {
                Verdict::Mismatch(why)
            } else {
                Verdict::Mismatch(format!(
                    "{why}; it matches ASSUMPTIONS.md {}",
                    name_readings(&matched)
                ))
            }
        }
        other => other,
    })
}

/// The check under `allowed`: whether some combination of the readings it allows explains the
/// device outcome (no reading named: [`check`] and [`tally`] name them).
pub fn check_allowed(
    target: &Target,
    variant: &Variant,
    case: &Case,
    device: &Outcome,
    allowed: Allowed,
    budget: usize,
) -> Result<Verdict, Unmodelled> {
    check_allowed_as(target, variant, case, device, allowed, budget, true)
}

/// [`check_allowed`]; with `words` false a mismatch does not say where the outcome differs (its
/// text is empty: [`tally`] asks only whether a reading explains the outcome, and working out
/// the words took a second run of the model and a formatted string per reading ruled out).
pub(super) fn check_allowed_as(
    target: &Target,
    variant: &Variant,
    case: &Case,
    device: &Outcome,
    allowed: Allowed,
    budget: usize,
    words: bool,
) -> Result<Verdict, Unmodelled> {
    if let Some(regs) = variant.regs {
        // Operands that share registers: judge what the instruction computed, read back from the
        // device's VDST (every other register it dumped must follow from it).
        let raw = match regs.unsettle(variant.op, variant.acc, case, device) {
            Ok(raw) => raw,
            Err(why) => return Ok(Verdict::Mismatch(why)),
        };
        let bare = Variant {
            regs: None,
            ..*variant
        };
        return check_allowed_as(target, &bare, case, &raw, allowed, budget, words);
    }
    let inst = variant.inst();
    let info = inst.op.info();
    let gen = target.generation;
    let structural = |how| -> Vec<Rules> {
        if readings::has_use(info, gen, how) {
            readings::structural(info, gen, allowed, how)
        } else {
            Vec::new()
        }
    };
    let orders: Vec<LaneOrder> = structural(Use::LaneOrder)
        .iter()
        .map(|r| r.lane_order)
        .collect();
    let collisions: Vec<Collision> = structural(Use::Collisions)
        .iter()
        .map(|r| r.collision)
        .collect();
    let mut first: Option<Verdict> = None;
    for whole in readings::combinations(info, gen, allowed, Use::WholeCase, Rules::MODEL) {
        let mut plans = Vec::new();
        for r in readings::combinations(info, gen, allowed, Use::PerLane, whole) {
            let plan = Plan::new_as(target, &inst, variant.mode, r)?;
            plan.check_case(&case.wave, case.lds.bytes())?;
            plans.push(plan);
        }
        let v = judge(&plans, &orders, &collisions, case, device, budget, words);
        if v.is_legal() {
            return Ok(v);
        }
        // A mismatch under the model's whole-case readings says best where the outcome differs.
        first.get_or_insert(v);
    }
    Ok(first.unwrap_or_else(|| Verdict::Mismatch("no reading is allowed".into())))
}

/// The check with one set of whole-case readings: `plans` one per allowed combination of
/// per-lane readings (the preferred first).
fn judge(
    plans: &[Plan],
    orders: &[LaneOrder],
    collisions: &[Collision],
    case: &Case,
    device: &Outcome,
    budget: usize,
    words: bool,
) -> Verdict {
    let plan = plans[0];
    // The fast path: the preferred readings run in an allowed fixed order with an allowed
    // collision rule (a held "descending lanes" runs descending, "lowest lane" the lowest).
    let mut fast = plan;
    if let Some(&o) = orders.iter().find(|o| **o != LaneOrder::Any) {
        fast.rules.lane_order = o;
    }
    if let Some(&c) = collisions.iter().find(|c| **c != Collision::Any) {
        fast.rules.collision = c;
    }
    let run = |p: &Plan| {
        let mut out = Outcome {
            lds: case.lds.clone(),
            vdst: case.wave.lanes.iter().map(|l| l.vdst).collect(),
            addr: case.wave.lanes.iter().map(|l| l.addr).collect(),
            data0: None,
            data1: None,
        };
        p.run(&case.wave, &mut out.lds, &mut out.vdst, &mut out.addr);
        out
    };
    if runs_to(&fast, case, device) {
        return Verdict::model();
    }
    let first_diff = match words {
        false => String::new(),
        true => describe(&run(&plan), device),
    };
    if plans.len() == 1 && orders.len() == 1 && orders[0] != LaneOrder::Any && collisions.len() <= 1
    {
        // One plan in one fixed order: the fast run was the only outcome allowed.
        return Verdict::Mismatch(first_diff);
    }
    if plan.info.family == Family::Permute {
        return permute(&plan, collisions, case, device, &first_diff);
    }
    let order_free = matches!(
        plan.info.family,
        Family::Rmw(_)
            | Family::Store(_)
            | Family::CondXchg32
            | Family::StoreAddTid
            | Family::BvhStack
    );
    if !order_free || device.lds.size() != case.lds.size() {
        return Verdict::Mismatch(first_diff);
    }
    // Registers of inactive lanes never change.
    for i in (0..case.wave.lanes.len()).filter(|&i| !case.wave.active(i)) {
        if device.vdst[i] != case.wave.lanes[i].vdst || device.addr[i] != case.wave.lanes[i].addr {
            return Verdict::Mismatch(format!("inactive lane {i} was written"));
        }
    }
    let groups = groups(&plan, case);
    // Bytes no active lane touches must be as before.
    let mut touched = vec![false; case.lds.size() as usize];
    for &b in groups.iter().flat_map(|g| &g.bytes) {
        touched[b as usize] = true;
    }
    for (at, (b, d)) in case.lds.bytes().iter().zip(device.lds.bytes()).enumerate() {
        if b != d && !touched[at] {
            return Verdict::Mismatch(format!(
                "LDS byte {at:#x} changed but no active lane writes it ({first_diff})"
            ));
        }
    }
    let any_order = orders.is_empty() || orders.contains(&LaneOrder::Any);
    let ascending = any_order || orders.contains(&LaneOrder::Ascending);
    let descending_ok = any_order || orders.contains(&LaneOrder::Descending);
    // A lane's choices are a set of plan indices in one word (`search::Choices`).
    assert!(
        plans.len() <= search::MAX_PLANS,
        "{} combinations of per-lane readings: more than a search holds",
        plans.len()
    );
    let mut search = Search {
        plan,
        plans: plans.to_vec(),
        case,
        device,
        mem: case.lds.clone(),
        steps: 0,
        budget,
        failed: FastSet::default(),
        alternatives: vec![],
        choices: Default::default(),
        kinds: Vec::new(),
    };
    search.reuse_tables();
    let mut orders_found = Vec::new();
    for g in &groups {
        search.failed.clear();
        search.steps = 0;
        let asc = g.lanes.clone();
        let desc: Vec<u8> = g.lanes.iter().rev().copied().collect();
        let mut order = Vec::new();
        // The fixed orders first (one simulation each, by each combination of readings), then
        // the polynomial decisions (decide.rs), and only then the search.
        let fixed: Vec<&Vec<u8>> = [(ascending, &asc), (descending_ok, &desc)]
            .into_iter()
            .filter(|(ok, _)| *ok)
            .map(|(_, o)| o)
            .collect();
        let mut found = None;
        // Each combination of readings in the model's order, then descending; the model's first.
        'fixed: for p in 0..plans.len() {
            for &o in &fixed {
                if search.runs_with_plan(g, o, p) {
                    order = o.clone();
                    found = Some(true);
                    break 'fixed;
                }
            }
        }
        if found.is_none() && !any_order {
            // Fixed orders only: each lane may still take any of its readings.
            found = Some(false);
            for &o in &fixed {
                match search.in_order(g, o) {
                    Some(true) => {
                        order = o.clone();
                        found = Some(true);
                        break;
                    }
                    Some(false) => {}
                    None => found = None,
                }
            }
        }
        let found = match found {
            Some(f) => Some(f),
            None if !any_order => None,
            None if matches!(plan.info.family, Family::Store(_) | Family::StoreAddTid) => {
                match search.last_writers(g) {
                    Some(o) => {
                        order = o;
                        Some(true)
                    }
                    None => Some(false),
                }
            }
            None => match search.decide(g, &mut order) {
                Some(decided) => Some(decided),
                None => search.dfs(g, search::mask_of(&g.lanes), &mut order),
            },
        };
        match found {
            Some(true) => orders_found.push(order),
            Some(false) => {
                return Verdict::Mismatch(format!(
                    "no order of lanes {:?} explains it ({first_diff})",
                    g.lanes
                ))
            }
            None => {
                return Verdict::Undecided(format!(
                    "gave up after {budget} lane steps on lanes {:?} ({first_diff})",
                    g.lanes
                ))
            }
        }
    }
    let all_ascending = orders_found
        .iter()
        .all(|o| o.windows(2).all(|w| w[0] < w[1]));
    let all_descending = orders_found
        .iter()
        .all(|o| o.windows(2).all(|w| w[0] > w[1]));
    let order = if all_ascending {
        Explanation::AscendingLanes
    } else if all_descending {
        Explanation::DescendingLanes
    } else {
        Explanation::Order(orders_found.concat())
    };
    let mut float_alternatives = std::mem::take(&mut search.alternatives);
    float_alternatives.sort_unstable();
    float_alternatives.dedup();
    Verdict::Legal {
        order,
        float_alternatives,
        readings: vec![],
    }
}

thread_local! {
    /// [`runs_to`]'s outcome, kept for the thread's next check (most checks end there).
    static SCRATCH: std::cell::RefCell<Outcome> = std::cell::RefCell::new(Outcome {
        lds: crate::wave::Lds::zeroed(0),
        vdst: Vec::new(),
        addr: Vec::new(),
        data0: None,
        data1: None,
    });
}

/// Whether `plan` run on `case` leaves exactly `device` (in a buffer of the thread's: no
/// allocation).
fn runs_to(plan: &Plan, case: &Case, device: &Outcome) -> bool {
    SCRATCH.with(|s| {
        let out = &mut *s.borrow_mut();
        out.lds.set_from(&case.lds);
        out.vdst.clear();
        out.vdst.extend(case.wave.lanes.iter().map(|l| l.vdst));
        out.addr.clear();
        out.addr.extend(case.wave.lanes.iter().map(|l| l.addr));
        plan.run(&case.wave, &mut out.lds, &mut out.vdst, &mut out.addr);
        *out == *device
    })
}

/// `ds_permute_b32`: every active lane's VDST must hold what one of its senders sent (S4's
/// allowed readings say which: the highest, the lowest, or any), 0 when none sent to it;
/// nothing else may change.
fn permute(
    plan: &Plan,
    collisions: &[Collision],
    case: &Case,
    device: &Outcome,
    first_diff: &str,
) -> Verdict {
    let lanes = &case.wave.lanes;
    let n = lanes.len();
    if device.vdst.len() != n || device.addr.len() != n || device.lds != case.lds {
        return Verdict::Mismatch(first_diff.to_string());
    }
    let mut senders: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in case.wave.active_lanes() {
        let to = super::lanes::permute_lane(plan.span, n, i, lanes[i].addr, plan.offset16);
        senders[to].push(i);
    }
    let (mut highest, mut lowest, mut any) = (true, true, true);
    for (i, lane) in lanes.iter().enumerate() {
        let got = device.vdst[i];
        if device.addr[i] != lane.addr || got[1..] != lane.vdst[1..] {
            return Verdict::Mismatch(first_diff.to_string());
        }
        if !case.wave.active(i) {
            if got != lane.vdst {
                return Verdict::Mismatch(format!("inactive lane {i} was written"));
            }
            continue;
        }
        let sent: Vec<u32> = senders[i].iter().map(|&s| lanes[s].data0[0]).collect();
        let (hi, lo) = (sent.last().copied(), sent.first().copied());
        highest &= got[0] == hi.unwrap_or(0);
        lowest &= got[0] == lo.unwrap_or(0);
        any &= if sent.is_empty() {
            got[0] == 0
        } else {
            sent.contains(&got[0])
        };
    }
    let ok = collisions.iter().any(|c| match c {
        Collision::Highest => highest,
        Collision::Lowest => lowest,
        Collision::Any => any,
    });
    if ok {
        Verdict::model()
    } else {
        Verdict::Mismatch(format!(
            "no sender of a colliding group explains it ({first_diff})"
        ))
    }
}

#[cfg(test)]
mod tests;
