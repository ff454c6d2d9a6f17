//! The lane-order search of the legal check: runs the lanes of a group that share bytes in the
//! orders the allowed readings give (A4: ascending, descending, any), each lane taking any value
//! an allowed per-lane reading gives it (the float rules of F1-F4, F6, N3), against the device's
//! registers and bytes. The orders and readings it may try come from [`super::super::readings`];
//! the search itself is the one described in [`super`]'s docs.

use super::groups::{footprint, Group};
use crate::model::{mem, Plan};
use crate::wave::{Case, Lds, Outcome};
use ds_isa::ds::{Family, Rmw};
use std::collections::HashSet;

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
    pub failed: HashSet<(u64, Vec<u8>)>,
    /// Lanes that took another choice than the first (ascending at the end).
    pub alternatives: Vec<u8>,
}

impl Search<'_> {
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
    /// whose lanes have no per-lane readings).
    fn lane_plans(&self, i: usize) -> Vec<usize> {
        let info = self.plan.info;
        let per_value = self.plans.len() > 1
            && matches!(info.family, Family::Rmw(_))
            && !info.two_addresses()
            && (info.elem.is_float() || info.elem.is_packed16());
        if !per_value {
            return vec![0];
        }
        let Family::Rmw(op) = info.family else {
            return vec![0];
        };
        let lane = &self.case.wave.lanes[i];
        let [a0, _] = self.plan.addresses(lane.addr);
        let old = mem::read_elem(self.mem.bytes(), a0, self.plan.elem_bytes);
        let (d0, d1) = self.plan.rmw_data(lane);
        let mut seen: Vec<u64> = Vec::with_capacity(self.plans.len());
        let mut out = Vec::with_capacity(self.plans.len());
        for (k, p) in self.plans.iter().enumerate() {
            let v = crate::model::rmw::update(op, info.elem, p.mode, p.rules, old, d0, d1);
            if !seen.contains(&v) {
                seen.push(v);
                out.push(k);
            }
        }
        out
    }

    /// How many results lane `i` may leave from the current memory.
    pub fn choices(&self, i: usize) -> usize {
        self.lane_plans(i).len()
    }

    /// Runs lane `i` by plan `p` on `self.mem`; true when its registers match the device's.
    pub fn apply_plan(&mut self, i: usize, p: usize) -> bool {
        let lane = self.case.wave.lanes[i];
        let (mut vdst, mut addr) = (lane.vdst, lane.addr);
        let m0 = self.case.wave.m0;
        self.plans[p].step(i, &lane, m0, self.mem.bytes_mut(), &mut vdst, &mut addr);
        vdst == self.device.vdst[i] && addr == self.device.addr[i]
    }

    /// Runs lane `i` with its choice `k` ([`Self::choices`]); true when its registers match.
    pub fn apply(&mut self, i: usize, k: usize) -> bool {
        let p = self.lane_plans(i)[k];
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
            if p > 0 && self.lane_plans(i).contains(&p) {
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
        for k in 0..self.choices(i) {
            self.steps += 1;
            if self.steps > self.budget {
                return None;
            }
            if self.apply(i, k) {
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
    pub fn dfs(&mut self, g: &Group, left: Vec<u8>, order: &mut Vec<u8>) -> Option<bool> {
        if left.is_empty() {
            return Some(self.bytes_match(g));
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
