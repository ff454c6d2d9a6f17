//! Legal outcomes: whether a device result the model did not predict is still one the hardware may
//! produce, and which choice explains it.
//!
//! The hardware is free (RDNA3 ISA guide, "Data Share Operations": lanes of one instruction that
//! hit one address are serialised in an unspecified order; LLVM AMDGPUUsage memory model: no
//! ordering among the lanes of one instruction) to run the lanes of one instruction that touch
//! overlapping bytes in any order, which decides the winning store and the values same-address
//! atomics return; and the model documents alternatives for float min/max (signed zeros, NaNs) and
//! for the NaN float add returns (ASSUMPTIONS.md F1-F3, N4 for the packed adds). Everything else must match the model bit for
//! bit; `ds_permute_b32` collisions are pinned by the guide (highest source lane wins).
//!
//! The check runs per group of lanes with overlapping footprints: the ascending and descending
//! orders first, with the model's results and then with the documented alternative wherever there
//! is one; then, for a group on one element, a polynomial decision (`decide`: an Euler trail
//! through the values the returns pin, or the few values a selection op can leave); then a search,
//! pruning on each lane's returned value, merging interchangeable lanes, remembering failed states
//! and giving up after a budget ([`Verdict::Undecided`]: an order-dependent update of many lanes
//! without returns, such as 64 `ds_rsub_u32` on one address, is a subset-sum question no
//! polynomial check answers).

use super::readings_bvh::{ReadingKind, FOLLOWS};
use super::{rmw, Plan, Unmodelled};
use crate::isa::{Family, Rmw};
use crate::target::Target;
use crate::wave::{Case, Lds, Outcome, Variant};
use std::collections::{HashMap, HashSet};

mod decide;

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
            } => {
                write!(f, "legal: {order}")?;
                if !float_alternatives.is_empty() {
                    let lanes: Vec<String> = float_alternatives.iter().map(u8::to_string).collect();
                    write!(
                        f,
                        ", lanes {} took the documented float alternative",
                        lanes.join(",")
                    )?;
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
    /// One of the legal outcomes: the order, and the lanes whose float result took the documented
    /// alternative to the model's choice.
    Legal {
        /// The lane order.
        order: Explanation,
        /// Lanes (ascending) where a float min/max/add alternative was taken.
        float_alternatives: Vec<u8>,
    },
    /// No legal outcome explains the device result; says where it first differs.
    Mismatch(String),
    /// The search budget ran out before an explanation was found or ruled out.
    Undecided(String),
}

/// Checks a device `outcome` of `variant` on `case` on `target` against every legal outcome (the
/// target's rules: [`super::Plan::new`]).
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
    let verdict = check_orders(target, variant, case, device, budget)?;
    // BVH-ONLY READINGS (readings_bvh): a device that follows another reading of a BVH question
    // is legal when the record allows that reading, else a mismatch that names it.
    let bvh = matches!(
        variant.op.info().family,
        Family::BvhStack | Family::BvhPushPop(_)
    );
    if let (true, Verdict::Mismatch(why)) = (bvh, &verdict) {
        if let Some(r) = super::readings_bvh::followed(target, variant, case, device)? {
            let named: Vec<String> = r.departures().iter().map(|n| n.to_string()).collect();
            return Ok(match r.kind() {
                ReadingKind::Legal => Verdict::Legal {
                    order: Explanation::AscendingLanes,
                    float_alternatives: vec![],
                },
                kind => Verdict::Mismatch(format!(
                    "{FOLLOWS} {} (a {} reading); {why}",
                    named.join(" and "),
                    kind.name()
                )),
            });
        }
    }
    Ok(verdict)
}

/// [`check_with_budget`] without the BVH readings: lane orders and documented alternatives.
fn check_orders(
    target: &Target,
    variant: &Variant,
    case: &Case,
    device: &Outcome,
    budget: usize,
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
        return check_with_budget(target, &bare, case, &raw, budget);
    }
    let inst = variant.inst();
    let model = super::execute(target, &inst, variant.mode, case)?;
    if model == *device {
        return Ok(Verdict::Legal {
            order: Explanation::AscendingLanes,
            float_alternatives: vec![],
        });
    }
    let plan = Plan::new(target, &inst, variant.mode)?;
    let first_diff = describe(&model, device);
    let order_free = matches!(
        plan.info.family,
        Family::Rmw(_)
            | Family::Store(_)
            | Family::CondXchg32
            | Family::StoreAddTid
            | Family::BvhStack
    );
    if !order_free || device.lds.size() != case.lds.size() {
        return Ok(Verdict::Mismatch(first_diff));
    }
    // Registers of inactive lanes never change.
    for i in (0..case.wave.lanes.len()).filter(|&i| !case.wave.active(i)) {
        if device.vdst[i] != case.wave.lanes[i].vdst || device.addr[i] != case.wave.lanes[i].addr {
            return Ok(Verdict::Mismatch(format!("inactive lane {i} was written")));
        }
    }
    let groups = groups(&plan, case);
    // Bytes no active lane touches must be as before.
    let touched: HashSet<u32> = groups
        .iter()
        .flat_map(|g| g.bytes.iter().copied())
        .collect();
    for (at, (b, d)) in case.lds.bytes().iter().zip(device.lds.bytes()).enumerate() {
        if b != d && !touched.contains(&(at as u32)) {
            return Ok(Verdict::Mismatch(format!(
                "LDS byte {at:#x} changed but no active lane writes it ({first_diff})"
            )));
        }
    }
    let mut search = Search {
        plan,
        case,
        device,
        mem: case.lds.clone(),
        steps: 0,
        budget,
        failed: HashSet::new(),
        alternatives: vec![],
    };
    let mut orders = Vec::new();
    for g in &groups {
        let mut order = Vec::new();
        search.failed.clear();
        search.steps = 0;
        // The two fixed orders first (one simulation each), then the search.
        let descending: Vec<u8> = g.lanes.iter().rev().copied().collect();
        // Then the same two orders with the documented alternative wherever there is one, then
        // the polynomial decisions (decide.rs), and only then the search.
        let found = if search.runs_as(g, &g.lanes) {
            order = g.lanes.clone();
            Some(true)
        } else if search.runs_as(g, &descending) {
            order = descending;
            Some(true)
        } else if search.runs_as_alternative(g, &g.lanes) {
            order = g.lanes.clone();
            Some(true)
        } else if search.runs_as_alternative(g, &descending) {
            order = descending;
            Some(true)
        } else if matches!(plan.info.family, Family::Store(_) | Family::StoreAddTid) {
            match search.last_writers(g) {
                Some(o) => {
                    order = o;
                    Some(true)
                }
                None => Some(false),
            }
        } else if let Some(decided) = search.decide(g, &mut order) {
            Some(decided)
        } else {
            search.dfs(g, g.lanes.clone(), &mut order)
        };
        match found {
            Some(true) => orders.push(order),
            Some(false) => {
                return Ok(Verdict::Mismatch(format!(
                    "no order of lanes {:?} explains it ({first_diff})",
                    g.lanes
                )))
            }
            None => {
                return Ok(Verdict::Undecided(format!(
                    "gave up after {budget} lane steps on lanes {:?} ({first_diff})",
                    g.lanes
                )))
            }
        }
    }
    let ascending = orders.iter().all(|o| o.windows(2).all(|w| w[0] < w[1]));
    let descending = orders.iter().all(|o| o.windows(2).all(|w| w[0] > w[1]));
    let order = if ascending {
        Explanation::AscendingLanes
    } else if descending {
        Explanation::DescendingLanes
    } else {
        Explanation::Order(orders.concat())
    };
    let mut float_alternatives = search.alternatives;
    float_alternatives.sort_unstable();
    Ok(Verdict::Legal {
        order,
        float_alternatives,
    })
}

/// Where the model and the device first differ, in words.
fn describe(model: &Outcome, device: &Outcome) -> String {
    if model.vdst.len() != device.vdst.len() || model.addr.len() != device.addr.len() {
        return format!(
            "the device returned {} lanes, the model {}",
            device.vdst.len(),
            model.vdst.len()
        );
    }
    for i in 0..model.vdst.len() {
        if model.vdst[i] != device.vdst[i] {
            return format!(
                "lane {i} vdst: model {:08x?}, device {:08x?}",
                model.vdst[i], device.vdst[i]
            );
        }
        if model.addr[i] != device.addr[i] {
            return format!(
                "lane {i} addr: model {:08x}, device {:08x}",
                model.addr[i], device.addr[i]
            );
        }
    }
    if model.lds.size() != device.lds.size() {
        return format!(
            "LDS size: model {}, device {}",
            model.lds.size(),
            device.lds.size()
        );
    }
    for at in (0..model.lds.size()).step_by(4) {
        let (m, d) = (model.lds.word(at), device.lds.word(at));
        if m != d {
            return format!("LDS dword {at:#06x}: model {m:08x}, device {d:08x}");
        }
    }
    "no difference".into()
}

/// Active lanes whose LDS footprints overlap, transitively, and the bytes they touch.
#[derive(Debug)]
struct Group {
    lanes: Vec<u8>,
    bytes: Vec<u32>,
    /// Every lane touches exactly the same bytes (one element, one address).
    same_element: bool,
}

/// The in-range bytes lane `i` may read or write.
fn footprint(plan: &Plan, case: &Case, i: usize) -> Vec<u32> {
    let lane = &case.wave.lanes[i];
    let size = case.lds.size();
    let span = |at: u32, n: u32| (0..n).map(move |k| at as u64 + k as u64);
    let eb = plan.elem_bytes;
    let raw: Vec<u64> = match plan.info.family {
        Family::CondXchg32 => {
            span(lane.addr.wrapping_add(u32::from(plan.offset16)) & 0xfff8, 8).collect()
        }
        Family::StoreAddTid => {
            span(super::addtid_address(case.wave.m0, plan.offset16, i), 4).collect()
        }
        Family::BvhStack => {
            let base = (lane.addr >> 18) * 4;
            (0..64u32)
                .flat_map(|k| span(base.wrapping_add(k * 128), 4))
                .collect()
        }
        _ => {
            let [a0, a1] = plan.addresses(lane.addr);
            let mut v: Vec<u64> = span(a0, eb).collect();
            if plan.info.two_addresses() {
                v.extend(span(a1, eb));
            }
            v
        }
    };
    raw.into_iter()
        .filter(|&b| b < u64::from(size))
        .map(|b| b as u32)
        .collect()
}

fn groups(plan: &Plan, case: &Case) -> Vec<Group> {
    let active: Vec<usize> = case.wave.active_lanes().collect();
    let mut parent: Vec<usize> = (0..case.wave.lanes.len()).collect();
    fn root(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut owner: HashMap<u32, usize> = HashMap::new();
    let mut prints = vec![Vec::new(); case.wave.lanes.len()];
    for &i in &active {
        prints[i] = footprint(plan, case, i);
        for &b in &prints[i] {
            if let Some(&j) = owner.get(&b) {
                let (a, c) = (root(&mut parent, i), root(&mut parent, j));
                parent[a] = c;
            } else {
                owner.insert(b, i);
            }
        }
    }
    let mut by_root: Vec<(usize, Group)> = Vec::new();
    for &i in &active {
        let r = root(&mut parent, i);
        let g = match by_root.iter_mut().find(|(k, _)| *k == r) {
            Some((_, g)) => g,
            None => {
                by_root.push((
                    r,
                    Group {
                        lanes: vec![],
                        bytes: vec![],
                        same_element: true,
                    },
                ));
                &mut by_root.last_mut().expect("just pushed").1
            }
        };
        if let Some(&first) = g.lanes.first() {
            g.same_element &= prints[usize::from(first)] == prints[i];
        }
        g.lanes.push(i as u8);
        g.bytes.extend(&prints[i]);
    }
    by_root
        .into_iter()
        .map(|(_, mut g)| {
            g.bytes.sort_unstable();
            g.bytes.dedup();
            g
        })
        .collect()
}

struct Search<'a> {
    plan: Plan,
    case: &'a Case,
    device: &'a Outcome,
    mem: Lds,
    steps: usize,
    budget: usize,
    failed: HashSet<(u64, Vec<u8>)>,
    alternatives: Vec<u8>,
}

impl Search<'_> {
    fn snapshot(&self, g: &Group) -> Vec<u8> {
        g.bytes
            .iter()
            .map(|&b| self.mem.bytes()[b as usize])
            .collect()
    }

    fn restore(&mut self, g: &Group, saved: &[u8]) {
        for (&b, &v) in g.bytes.iter().zip(saved) {
            self.mem.bytes_mut()[b as usize] = v;
        }
    }

    /// The results lane `i` may leave from the current memory: (alternative taken, vdst, addr),
    /// each applied to `self.mem` in turn by the caller through `apply`.
    fn choices(&self, i: usize) -> usize {
        match self.plan.info.family {
            Family::Rmw(op)
                if !self.plan.info.two_addresses()
                    && (self.plan.info.elem.is_float() || self.plan.info.elem.is_packed16()) =>
            {
                let (old, d0, d1) = self.operands(i);
                rmw::update_alternatives(op, self.plan.info.elem, self.plan.mode, old, d0, d1).len()
            }
            _ => 1,
        }
    }

    fn operands(&self, i: usize) -> (u64, u64, u64) {
        let lane = &self.case.wave.lanes[i];
        let [a0, _] = self.plan.addresses(lane.addr);
        let old = super::mem::read_elem(self.mem.bytes(), a0, self.plan.elem_bytes);
        let (d0, d1) = self.plan.rmw_data(lane);
        (old, d0, d1)
    }

    /// Runs lane `i` with choice `k` on `self.mem`; true when its registers match the device's.
    fn apply(&mut self, i: usize, k: usize) -> bool {
        let lane = self.case.wave.lanes[i];
        let (mut vdst, mut addr) = (lane.vdst, lane.addr);
        if k == 0 {
            let m0 = self.case.wave.m0;
            self.plan
                .step(i, &lane, m0, self.mem.bytes_mut(), &mut vdst, &mut addr);
        } else if let Family::Rmw(op) = self.plan.info.family {
            let (old, d0, d1) = self.operands(i);
            let eb = self.plan.elem_bytes;
            let alt =
                rmw::update_alternatives(op, self.plan.info.elem, self.plan.mode, old, d0, d1)[k];
            let [a0, _] = self.plan.addresses(lane.addr);
            super::mem::write_elem(self.mem.bytes_mut(), a0, eb, alt);
            if self.plan.info.returns() {
                super::put(&mut vdst, 0, old, eb);
            }
        }
        vdst == self.device.vdst[i] && addr == self.device.addr[i]
    }

    /// Whether running the group's lanes in `order` (model choices) gives the device's registers
    /// and bytes; on success the memory keeps the result, otherwise it is restored.
    fn runs_as(&mut self, g: &Group, order: &[u8]) -> bool {
        let saved = self.snapshot(g);
        let ok = order.iter().all(|&l| self.apply(usize::from(l), 0))
            && g.bytes
                .iter()
                .all(|&b| self.mem.bytes()[b as usize] == self.device.lds.bytes()[b as usize]);
        if !ok {
            self.restore(g, &saved);
        }
        ok
    }

    /// For pure stores: builds the order from the back, each time taking a lane whose bytes not yet
    /// claimed by later lanes all hold the device's final value. Sound and complete: the last
    /// lane of any explaining order qualifies, and a qualifying lane can always be moved last.
    fn last_writers(&self, g: &Group) -> Option<Vec<u8>> {
        let m0 = self.case.wave.m0;
        let size = self.case.lds.size();
        let writes: Vec<(u8, Vec<(u32, u8)>)> = g
            .lanes
            .iter()
            .map(|&l| {
                let i = usize::from(l);
                let mut scratch = Lds::zeroed(size);
                let lane = self.case.wave.lanes[i];
                let (mut vdst, mut addr) = (lane.vdst, lane.addr);
                self.plan
                    .step(i, &lane, m0, scratch.bytes_mut(), &mut vdst, &mut addr);
                let bytes = footprint(&self.plan, self.case, i)
                    .into_iter()
                    .map(|b| (b, scratch.bytes()[b as usize]))
                    .collect();
                (l, bytes)
            })
            .collect();
        // Stores leave the registers alone.
        for &l in &g.lanes {
            let (i, lane) = (usize::from(l), &self.case.wave.lanes[usize::from(l)]);
            if self.device.vdst[i] != lane.vdst || self.device.addr[i] != lane.addr {
                return None;
            }
        }
        let mut claimed: HashSet<u32> = HashSet::new();
        let mut left: Vec<usize> = (0..writes.len()).collect();
        let mut reversed = Vec::new();
        while !left.is_empty() {
            // Prefer the highest lane, so the model's own order is found when it explains it.
            let pos = left.iter().rposition(|&k| {
                writes[k]
                    .1
                    .iter()
                    .all(|&(b, v)| claimed.contains(&b) || self.device.lds.bytes()[b as usize] == v)
            })?;
            let k = left.remove(pos);
            claimed.extend(writes[k].1.iter().map(|&(b, _)| b));
            reversed.push(writes[k].0);
        }
        reversed.reverse();
        Some(reversed)
    }

    /// Finds an order of `left` that ends in the device's bytes: Some(found) or None (budget).
    fn dfs(&mut self, g: &Group, left: Vec<u8>, order: &mut Vec<u8>) -> Option<bool> {
        if left.is_empty() {
            let ok = g
                .bytes
                .iter()
                .all(|&b| self.mem.bytes()[b as usize] == self.device.lds.bytes()[b as usize]);
            return Some(ok);
        }
        let mask = left.iter().fold(0u64, |m, &l| m | 1 << l);
        let saved = self.snapshot(g);
        if self.failed.contains(&(mask, saved.clone())) {
            return Some(false);
        }
        // Commutative updates without returns end in the same bytes in any order, provided each
        // lane reads and writes the whole element (an element cut by the end of LDS truncates).
        let commutative_silent = g.same_element
            && g.bytes.len() == self.plan.elem_bytes as usize
            && !self.plan.info.returns()
            && matches!(
                self.plan.info.family,
                Family::Rmw(
                    Rmw::Add | Rmw::Sub | Rmw::And | Rmw::Or | Rmw::Xor | Rmw::Min | Rmw::Max
                )
            )
            && !self.plan.info.elem.is_float();
        // With one element per group and returns, a lane's return pins the memory it saw; a lane
        // that matches the device now and leaves that value unchanged runs now without loss (it is
        // neutral wherever it can run, and nothing else sees a difference).
        let pinned = g.same_element
            && self.plan.info.returns()
            && matches!(self.plan.info.family, Family::Rmw(_) | Family::CondXchg32);
        for (pos, &l) in left.iter().enumerate().filter(|_| pinned) {
            let i = usize::from(l);
            self.steps += 1;
            if self.steps > self.budget {
                return None;
            }
            if self.choices(i) == 1 && self.apply(i, 0) && self.snapshot(g) == saved {
                let mut rest = left.clone();
                rest.remove(pos);
                order.push(l);
                let found = self.dfs(g, rest, order)?;
                if !found {
                    order.pop();
                    self.failed.insert((mask, saved));
                }
                return Some(found);
            }
            self.restore(g, &saved);
        }
        let mut tried: Vec<usize> = Vec::new();
        for (pos, &l) in left.iter().enumerate() {
            let i = usize::from(l);
            // Lanes with the same inputs and the same device registers are interchangeable.
            let lane = &self.case.wave.lanes[i];
            if tried.iter().any(|&j| {
                self.case.wave.lanes[j].addr == lane.addr
                    && self.case.wave.lanes[j].data0 == lane.data0
                    && self.case.wave.lanes[j].data1 == lane.data1
                    && self.device.vdst[j] == self.device.vdst[i]
                    && self.device.addr[j] == self.device.addr[i]
            }) {
                continue;
            }
            tried.push(i);
            for k in 0..self.choices(i) {
                self.steps += 1;
                if self.steps > self.budget {
                    return None;
                }
                if self.apply(i, k) {
                    let mut rest = left.clone();
                    rest.remove(pos);
                    order.push(l);
                    let floats = self.alternatives.len();
                    if k > 0 {
                        self.alternatives.push(l);
                    }
                    match self.dfs(g, rest, order)? {
                        true => return Some(true),
                        false => {
                            order.pop();
                            self.alternatives.truncate(floats);
                        }
                    }
                }
                self.restore(g, &saved);
            }
            if commutative_silent {
                // Every order of these updates ends in the same bytes: one order decides.
                break;
            }
        }
        self.failed.insert((mask, saved));
        Some(false)
    }
}

#[cfg(test)]
mod tests;
