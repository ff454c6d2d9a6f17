//! The lane-order search of the legal check: runs the lanes of a group that share bytes in the
//! orders the allowed readings give (A4: ascending, descending, any), each lane taking any value
//! an allowed per-lane reading gives it (the float rules of F1-F4, F6, N3), against the device's
//! registers and bytes. The orders and readings it may try come from [`super::super::readings`];
//! the search itself is the one described in [`super`]'s docs.

use super::groups::{footprint, Group};
use crate::model::fast_hash::{FastMap, FastSet};
use crate::model::{mem, Plan};
use crate::wave::{Case, Lds, Outcome};
use ds_isa::ds::{Family, Rmw};

pub(super) struct Search<'a> {
    /// The plan every lane runs by when it takes its first choice (`plans[0]`).
    pub plan: Plan,
    /// One plan per allowed combination of per-lane readings, the preferred first.
    pub plans: Vec<Plan>,
    pub case: &'a Case,
    pub device: &'a Outcome,
    pub mem: Lds,
    pub steps: usize,
    pub budget: usize,
    /// States known to lead nowhere.
    pub failed: FastSet<State>,
    /// Lanes that took another choice than the first (ascending at the end).
    pub alternatives: Vec<u8>,
    /// Each lane's kind (see [`Self::kinds`]; empty until the search needs them).
    pub kinds: Vec<u8>,
    /// Each lane's choices by the value it found ([`Self::lane_plans`]).
    pub choices: FastMap<(u8, u64), Choices>,
}

/// A search's tables kept for the next search on the same thread (their capacity, not their
/// contents: a run checks hundreds of thousands of cases, and growing these afresh each time was
/// a large share of the check's allocations).
type Tables = (FastSet<State>, FastMap<(u8, u64), Choices>);

thread_local! {
    static SPARE: std::cell::RefCell<Tables> = Default::default();
}

/// Tables larger than this many entries are not kept (clearing costs their capacity).
const KEEP_TABLES: usize = 1 << 14;

impl Drop for Search<'_> {
    fn drop(&mut self) {
        let mut failed = std::mem::take(&mut self.failed);
        let mut choices = std::mem::take(&mut self.choices);
        if failed.capacity() <= KEEP_TABLES && choices.capacity() <= KEEP_TABLES {
            failed.clear();
            choices.clear();
            SPARE.with(|s| *s.borrow_mut() = (failed, choices));
        }
    }
}

impl Search<'_> {
    /// Takes the tables the thread's last search left (empty, with their capacity).
    pub fn reuse_tables(&mut self) {
        let (failed, choices) = SPARE.with(|s| std::mem::take(&mut *s.borrow_mut()));
        debug_assert!(failed.is_empty() && choices.is_empty());
        self.failed = failed;
        self.choices = choices;
    }

    pub fn snapshot(&self, g: &Group) -> Vec<u8> {
        g.bytes
            .iter()
            .map(|&b| self.mem.bytes()[b as usize])
            .collect()
    }

    pub fn restore(&mut self, g: &Group, saved: &[u8]) {
        for (&b, &v) in g.bytes.iter().zip(saved) {
            self.mem.bytes_mut()[b as usize] = v;
        }
    }

    fn bytes_match(&self, g: &Group) -> bool {
        g.bytes
            .iter()
            .all(|&b| self.mem.bytes()[b as usize] == self.device.lds.bytes()[b as usize])
    }

    /// Lane `i`'s choices from the current memory: for each distinct value its update can leave
    /// under the allowed plans, the first plan that leaves it (one choice, plan 0, for every op
    /// whose lanes have no per-lane readings), as a set of plan indices (ascending: choice k is
    /// the k-th lowest; see [`Choices`]).
    pub fn lane_plans(&mut self, i: usize) -> Choices {
        let info = self.plan.info;
        let per_value = self.plans.len() > 1
            && matches!(info.family, Family::Rmw(_))
            && !info.two_addresses()
            && (info.elem.is_float() || info.elem.is_packed16());
        let Family::Rmw(op) = info.family else {
            return Choices(1);
        };
        if !per_value {
            return Choices(1);
        }
        let lane = &self.case.wave.lanes[i];
        let [a0, _] = self.plan.addresses(lane.addr);
        let old = mem::read_elem(self.mem.bytes(), a0, self.plan.elem_bytes);
        // A lane's choices depend on the value it finds only: worked out once per value.
        if let Some(&c) = self.choices.get(&(i as u8, old)) {
            return c;
        }
        let (d0, d1) = self.plan.rmw_data(lane);
        let mut seen = [0u64; MAX_PLANS];
        let (mut n, mut out) = (0, 0u64);
        for (k, p) in self.plans.iter().enumerate() {
            let v = crate::model::rmw::update(op, info.elem, p.mode, p.rules, old, d0, d1);
            if !seen[..n].contains(&v) {
                seen[n] = v;
                n += 1;
                out |= 1 << k;
            }
        }
        self.choices.insert((i as u8, old), Choices(out));
        Choices(out)
    }

    /// Runs lane `i` by plan `p` on `self.mem`; true when its registers match the device's.
    pub fn apply_plan(&mut self, i: usize, p: usize) -> bool {
        let lane = self.case.wave.lanes[i];
        let (mut vdst, mut addr) = (lane.vdst, lane.addr);
        let m0 = self.case.wave.m0;
        self.plans[p].step(i, &lane, m0, self.mem.bytes_mut(), &mut vdst, &mut addr);
        vdst == self.device.vdst[i] && addr == self.device.addr[i]
    }

    /// Runs lane `i` with its choice `k` ([`Self::lane_plans`]); true when its registers match.
    pub fn apply(&mut self, i: usize, k: usize) -> bool {
        let p = self.lane_plans(i).nth(k);
        self.apply_plan(i, p)
    }

    /// Whether running the group's lanes in `order`, every lane by plan `p`, gives the device's
    /// registers and bytes; on success the memory keeps the result, otherwise it is restored. A
    /// device that always follows one reading is found in one run.
    pub fn runs_with_plan(&mut self, g: &Group, order: &[u8], p: usize) -> bool {
        let saved = self.snapshot(g);
        let before = self.alternatives.len();
        let mut ok = true;
        for &l in order {
            let i = usize::from(l);
            if p > 0 && self.lane_plans(i).contains(p) {
                self.alternatives.push(l);
            }
            if !self.apply_plan(i, p) {
                ok = false;
                break;
            }
        }
        ok = ok && self.bytes_match(g);
        if !ok {
            self.alternatives.truncate(before);
            self.restore(g, &saved);
        }
        ok
    }

    /// Whether running the group's lanes in `order`, each taking any of its choices, gives the
    /// device's registers and bytes: Some(found) (memory keeps the result), or None (budget).
    pub fn in_order(&mut self, g: &Group, order: &[u8]) -> Option<bool> {
        let Some((&l, rest)) = order.split_first() else {
            return Some(self.bytes_match(g));
        };
        let i = usize::from(l);
        let saved = self.snapshot(g);
        // The memory is `saved` at every choice: the choices are the same for each.
        let choices = self.lane_plans(i);
        for k in 0..choices.len() {
            self.steps += 1;
            if self.steps > self.budget {
                return None;
            }
            if self.apply_plan(i, choices.nth(k)) {
                let before = self.alternatives.len();
                if k > 0 {
                    self.alternatives.push(l);
                }
                if self.in_order(g, rest)? {
                    return Some(true);
                }
                self.alternatives.truncate(before);
            }
            self.restore(g, &saved);
        }
        Some(false)
    }

    /// For pure stores: builds the order from the back, each time taking a lane whose bytes not yet
    /// claimed by later lanes all hold the device's final value. Sound and complete: the last
    /// lane of any explaining order qualifies, and a qualifying lane can always be moved last.
    pub fn last_writers(&self, g: &Group) -> Option<Vec<u8>> {
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
        let mut claimed = vec![false; size as usize];
        let mut left: Vec<usize> = (0..writes.len()).collect();
        let mut reversed = Vec::new();
        while !left.is_empty() {
            // Prefer the highest lane, so the model's own order is found when it explains it.
            let pos = left.iter().rposition(|&k| {
                writes[k]
                    .1
                    .iter()
                    .all(|&(b, v)| claimed[b as usize] || self.device.lds.bytes()[b as usize] == v)
            })?;
            let k = left.remove(pos);
            for &(b, _) in &writes[k].1 {
                claimed[b as usize] = true;
            }
            reversed.push(writes[k].0);
        }
        reversed.reverse();
        Some(reversed)
    }

    /// Finds an order of the lanes of `left` (a mask; tried in ascending order) that ends in
    /// the device's bytes: Some(found) or None (budget).
    pub fn dfs(&mut self, g: &Group, left: u64, order: &mut Vec<u8>) -> Option<bool> {
        if left == 0 {
            return Some(self.bytes_match(g));
        }
        // The state (the lanes left and the group's bytes): the key of the failed states.
        let key = self.state(g, left);
        if self.failed.contains(&key) {
            return Some(false);
        }
        let saved = match &key {
            State::Small(_, b) => &b[..g.bytes.len()],
            State::Big(_, b) => &b[..],
        };
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
        for l in lanes(if pinned { left } else { 0 }) {
            let i = usize::from(l);
            self.steps += 1;
            if self.steps > self.budget {
                return None;
            }
            let choices = self.lane_plans(i);
            if choices.len() == 1 && self.apply_plan(i, choices.nth(0)) && self.holds(g, saved) {
                order.push(l);
                let found = self.dfs(g, left & !(1 << l), order)?;
                if !found {
                    order.pop();
                    self.failed.insert(key);
                }
                return Some(found);
            }
            self.restore(g, saved);
        }
        // Lanes with the same inputs and the same device registers are interchangeable: one
        // of each kind is tried.
        if self.kinds.is_empty() {
            self.kinds = self.kinds();
        }
        let mut tried = 0u64;
        for l in lanes(left) {
            let i = usize::from(l);
            let kind = 1 << self.kinds[i];
            if tried & kind != 0 {
                continue;
            }
            tried |= kind;
            // The memory is `saved` at every choice: the choices are the same for each.
            let choices = self.lane_plans(i);
            for k in 0..choices.len() {
                self.steps += 1;
                if self.steps > self.budget {
                    return None;
                }
                if self.apply_plan(i, choices.nth(k)) {
                    order.push(l);
                    let floats = self.alternatives.len();
                    if k > 0 {
                        self.alternatives.push(l);
                    }
                    match self.dfs(g, left & !(1 << l), order)? {
                        true => return Some(true),
                        false => {
                            order.pop();
                            self.alternatives.truncate(floats);
                        }
                    }
                }
                self.restore(g, saved);
            }
            if commutative_silent {
                // Every order of these updates ends in the same bytes: one order decides.
                break;
            }
        }
        self.failed.insert(key);
        Some(false)
    }

    /// The search's state: the lanes `left` and the group's bytes.
    fn state(&self, g: &Group, left: u64) -> State {
        State::of(left, g.bytes.iter().map(|&b| self.mem.bytes()[b as usize]))
    }

    /// Each lane's kind: the lowest lane with the same inputs (address, data) and the same
    /// device registers.
    fn kinds(&self) -> Vec<u8> {
        let lanes = &self.case.wave.lanes;
        let same = |i: usize, j: usize| {
            lanes[j].addr == lanes[i].addr
                && lanes[j].data0 == lanes[i].data0
                && lanes[j].data1 == lanes[i].data1
                && self.device.vdst[j] == self.device.vdst[i]
                && self.device.addr[j] == self.device.addr[i]
        };
        (0..lanes.len())
            .map(|i| {
                (0..=i)
                    .find(|&j| same(i, j))
                    .expect("a lane is its own kind") as u8
            })
            .collect()
    }

    /// Whether the group's bytes hold `saved` (a [`Self::snapshot`]).
    fn holds(&self, g: &Group, saved: &[u8]) -> bool {
        (g.bytes.iter().zip(saved)).all(|(&b, &v)| self.mem.bytes()[b as usize] == v)
    }
}

/// A state of the search: the lanes left (a mask) and the group's bytes, in place when there
/// are at most [`SMALL_STATE`] of them (the usual group: no allocation per state).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum State {
    Small(u64, [u8; SMALL_STATE]),
    Big(u64, Vec<u8>),
}

impl State {
    /// The state of the lanes `left` and the group's `bytes`.
    pub fn of(left: u64, bytes: impl ExactSizeIterator<Item = u8>) -> State {
        if bytes.len() <= SMALL_STATE {
            let mut small = [0u8; SMALL_STATE];
            for (s, b) in small.iter_mut().zip(bytes) {
                *s = b;
            }
            State::Small(left, small)
        } else {
            State::Big(left, bytes.collect())
        }
    }
}

/// Group bytes a state holds in place: 64, so that the usual groups, up to a chain of eight
/// misaligned 8-byte elements (36 bytes), allocate nothing per state of the search.
const SMALL_STATE: usize = 64;

/// The lanes of `mask`, ascending.
pub(super) fn lanes(mask: u64) -> impl Iterator<Item = u8> {
    let mut bits = mask;
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let l = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            l
        })
    })
}

/// The mask of `lanes` (each below 64).
pub(super) fn mask_of(lanes: &[u8]) -> u64 {
    lanes.iter().fold(0, |m, &l| m | 1 << l)
}

/// Plans a search holds at most (combinations of per-lane readings; a test keeps every op's
/// within it).
pub const MAX_PLANS: usize = 64;

/// A lane's choices: the indices of the plans it takes, as bits (choice k is the k-th lowest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Choices(u64);

impl Choices {
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn contains(self, p: usize) -> bool {
        self.0 >> p & 1 == 1
    }

    /// The plan of choice `k` (which must be below [`Self::len`]).
    pub fn nth(self, k: usize) -> usize {
        let mut bits = self.0;
        for _ in 0..k {
            bits &= bits - 1;
        }
        debug_assert!(bits != 0, "choice {k} of {}", self.len());
        bits.trailing_zeros() as usize
    }
}
