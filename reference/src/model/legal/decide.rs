//! Polynomial decisions for the groups of lanes on one element that the order search would
//! explore exponentially (docs/design-notes.md, "Runs at scale"): every lane of such a group is one read-modify-
//! write of the same element, so a lane order is a walk through the element's values, one lane
//! per step.
//!
//! - **With returns** each lane's return pins the value it saw, so each lane is an edge from that
//!   value to the one it leaves, and a legal order is an Euler trail from the element's first
//!   value to the device's last one using every edge once (Euler; Hierholzer's construction).
//!   Exact when every lane has one possible result from the value it saw.
//! - **Without returns** the values reachable at all are computed first (for the selection ops,
//!   min and max, integer or float with their documented alternatives, a lane leaves one of its
//!   operands: the values are few). The device's value must be among them, and every lane must
//!   have a step from a reachable value to one from which the device's value is reachable; else no
//!   order explains it. A witness is searched for as a path of distinct lanes to the device's
//!   value, every other lane placed where it leaves the value unchanged (a lane whose data loses
//!   to the current value keeps it, under the literal rule raw): built, then run.
//!
//! A decision is `Some(true)` (the order, run and checked, is in `order`), `Some(false)` (no order
//! can explain the device's value), or `None` (undecided here: the search takes over).

use super::search::Search;
use super::Group;
use crate::model::fast_hash::FastMap;
use crate::model::{join, mem, rmw};
use ds_isa::ds::Family;
use std::collections::VecDeque;

/// Values of the element followed at most (beyond these the op is no selection: the search takes
/// over).
const MAX_VALUES: usize = 4 * 64 + 16;
/// States (value, lanes that can be placed) the witness search visits at most.
const MAX_STATES: usize = 20_000;

/// One step of a walk: lane, its choice (0 the model's, else a documented alternative), and the
/// value it leaves (an index into the values).
type Step = (u8, usize, usize);

/// A state of the witness search: (value index, lanes that can be placed so far as a mask).
type State = (usize, u64);

/// How each state of the witness search was reached: the state before and the step from it.
type Parents = FastMap<State, Option<(State, Step)>>;

impl Search<'_> {
    /// The element the group's lanes share (its address), when the group is one whole element of
    /// a single-address read-modify-write.
    fn element(&self, g: &Group) -> Option<u32> {
        let info = self.plan.info;
        let rmw = matches!(info.family, Family::Rmw(_)) && !info.two_addresses();
        if !rmw || !g.same_element || g.bytes.len() != self.plan.elem_bytes as usize {
            return None;
        }
        let lane = &self.case.wave.lanes[usize::from(g.lanes[0])];
        Some(self.plan.addresses(lane.addr)[0])
    }

    fn read(&self, at: u32) -> u64 {
        mem::read_elem(self.mem.bytes(), at, self.plan.elem_bytes)
    }

    fn write(&mut self, at: u32, v: u64) {
        mem::write_elem(self.mem.bytes_mut(), at, self.plan.elem_bytes, v);
    }

    /// Every (choice, value left) of lane `i` from value `v`, for the choices that leave the
    /// lane's registers as the device's.
    fn steps_from(&mut self, at: u32, i: usize, v: u64) -> Vec<(usize, u64)> {
        self.write(at, v);
        // The same memory at every choice (the lane touches the element only): one look-up.
        let choices = self.lane_plans(i);
        let mut out = Vec::with_capacity(choices.len());
        for k in 0..choices.len() {
            self.write(at, v);
            if self.apply_plan(i, choices.nth(k)) {
                out.push((k, self.read(at)));
            }
        }
        self.write(at, v);
        out
    }

    /// Runs `steps` (lane, choice) from the group's first value; true when the group's bytes and
    /// registers end as the device's (the memory keeps the result), else the memory is restored.
    fn runs_with(&mut self, g: &Group, steps: &[(u8, usize)]) -> bool {
        let saved = self.snapshot(g);
        let ok = steps.iter().all(|&(l, k)| self.apply(usize::from(l), k))
            && g.bytes
                .iter()
                .all(|&b| self.mem.bytes()[b as usize] == self.device.lds.bytes()[b as usize]);
        if ok {
            self.alternatives
                .extend(steps.iter().filter(|s| s.1 > 0).map(|s| s.0));
        } else {
            self.restore(g, &saved);
        }
        ok
    }

    /// The decision for group `g`, if this module can make it (see the module's docs).
    pub(super) fn decide(&mut self, g: &Group, order: &mut Vec<u8>) -> Option<bool> {
        let at = self.element(g)?;
        if self.plan.info.returns() {
            self.euler(g, at, order)
        } else {
            self.absorb(g, at, order)
        }
    }

    /// Returning lanes: the Euler trail through the values the lanes saw.
    fn euler(&mut self, g: &Group, at: u32, order: &mut Vec<u8>) -> Option<bool> {
        let first = self.read(at);
        let saved = self.snapshot(g);
        let last = mem::read_elem(self.device.lds.bytes(), at, self.plan.elem_bytes);
        let mask = rmw::mask(self.plan.elem_bytes);
        // Each lane's edge: the value its return says it saw -> the one it left.
        let mut edges: Vec<(u64, u64, u8, usize)> = Vec::new();
        for &l in &g.lanes {
            let i = usize::from(l);
            let seen = join(&self.device.vdst[i]) & mask;
            match self.steps_from(at, i, seen)[..] {
                [] => {
                    self.restore(g, &saved);
                    return Some(false);
                }
                [(k, next)] => edges.push((seen, next, l, k)),
                _ => {
                    self.restore(g, &saved);
                    return None;
                }
            }
        }
        self.restore(g, &saved);
        let Some(trail) = euler_trail(first, last, &edges) else {
            return Some(false);
        };
        let steps: Vec<(u8, usize)> = trail.iter().map(|&e| (edges[e].2, edges[e].3)).collect();
        if !self.runs_with(g, &steps) {
            return None;
        }
        order.extend(steps.iter().map(|s| s.0));
        Some(true)
    }

    /// Lanes without returns: reachable values, two necessary conditions, then a witness.
    fn absorb(&mut self, g: &Group, at: u32, order: &mut Vec<u8>) -> Option<bool> {
        let saved = self.snapshot(g);
        let walk = self.values(g, at);
        self.restore(g, &saved);
        let walk = walk?;
        let last = mem::read_elem(self.device.lds.bytes(), at, self.plan.elem_bytes);
        let Some(&target) = walk.index.get(&last) else {
            return Some(false);
        };
        // Values from which the device's value can be reached.
        let mut back = vec![false; walk.values.len()];
        back[target] = true;
        let mut changed = true;
        while changed {
            changed = false;
            for (v, steps) in walk.steps.iter().enumerate() {
                if !back[v] && steps.iter().any(|s| back[s.2]) {
                    back[v] = true;
                    changed = true;
                }
            }
        }
        // Every lane runs somewhere: from a reachable value to one that still leads there.
        for &l in &g.lanes {
            let placed = walk.steps.iter().flatten().any(|s| s.0 == l && back[s.2]);
            if !placed {
                return Some(false);
            }
        }
        let steps = self.witness(g, &walk, target)?;
        if !self.runs_with(g, &steps) {
            return None;
        }
        order.extend(steps.iter().map(|s| s.0));
        Some(true)
    }

    /// The element's values reachable from its first one by any lanes in any order (each lane
    /// any number of times: a superset of the real walks), with every step; `None` past
    /// [`MAX_VALUES`].
    fn values(&mut self, g: &Group, at: u32) -> Option<Walk> {
        let first = self.read(at);
        let mut walk = Walk {
            values: vec![first],
            index: FastMap::from_iter([(first, 0)]),
            steps: Vec::new(),
        };
        let mut next = 0;
        while next < walk.values.len() {
            let v = walk.values[next];
            let mut out = Vec::new();
            for &l in &g.lanes {
                for (k, w) in self.steps_from(at, usize::from(l), v) {
                    let wi = match walk.index.get(&w) {
                        Some(&wi) => wi,
                        None => {
                            if walk.values.len() >= MAX_VALUES {
                                return None;
                            }
                            walk.values.push(w);
                            walk.index.insert(w, walk.values.len() - 1);
                            walk.values.len() - 1
                        }
                    };
                    out.push((l, k, wi));
                }
            }
            walk.steps.push(out);
            next += 1;
        }
        Some(walk)
    }

    /// A path of distinct lanes from the first value to `target` that leaves every other lane a
    /// value on the way where it changes nothing, as (lane, choice) steps; `None` when the
    /// search of [`MAX_STATES`] states finds none.
    fn witness(&mut self, g: &Group, walk: &Walk, target: usize) -> Option<Vec<(u8, usize)>> {
        // Lanes that leave value v as it is, with the choice that does.
        let keeps: Vec<Vec<(u8, usize)>> = walk
            .steps
            .iter()
            .enumerate()
            .map(|(v, steps)| {
                let mut k: Vec<(u8, usize)> = Vec::new();
                for s in steps.iter().filter(|s| s.2 == v) {
                    if !k.iter().any(|x| x.0 == s.0) {
                        k.push((s.0, s.1));
                    }
                }
                k
            })
            .collect();
        let bits = |ls: &[(u8, usize)]| ls.iter().fold(0u64, |m, x| m | 1 << x.0);
        let all = g.lanes.iter().fold(0u64, |m, &l| m | 1 << l);
        // BFS over (value, lanes placeable so far), remembering how each state was reached.
        let start = (0usize, bits(&keeps[0]));
        let mut parent: Parents = FastMap::from_iter([(start, None)]);
        let mut queue = VecDeque::from([start]);
        while let Some(state) = queue.pop_front() {
            if state.0 == target {
                if let Some(steps) = build(state, &parent, &keeps, all) {
                    return Some(steps);
                }
            }
            for &(l, k, w) in &walk.steps[state.0] {
                if w == state.0 {
                    continue;
                }
                let to = (w, state.1 | bits(&keeps[w]));
                if !parent.contains_key(&to) {
                    if parent.len() >= MAX_STATES {
                        return None;
                    }
                    parent.insert(to, Some((state, (l, k, w))));
                    queue.push_back(to);
                }
            }
        }
        None
    }
}

/// The element's reachable values and the steps out of each.
struct Walk {
    values: Vec<u64>,
    index: FastMap<u64, usize>,
    /// Per value: (lane, choice, value left) of every lane from it.
    steps: Vec<Vec<Step>>,
}

/// The full order for the path that reached `state`: its lanes (which must be distinct), each
/// other lane inserted at the first value of the path it keeps; `None` when the path repeats a
/// lane or leaves one nowhere to go.
fn build(
    state: State,
    parent: &Parents,
    keeps: &[Vec<(u8, usize)>],
    all: u64,
) -> Option<Vec<(u8, usize)>> {
    let mut path: Vec<Step> = Vec::new();
    let mut at = state;
    while let Some(Some((prev, step))) = parent.get(&at) {
        path.push(*step);
        at = *prev;
    }
    path.reverse();
    let on_path = path.iter().try_fold(0u64, |m, s| {
        let bit = 1u64 << s.0;
        (m & bit == 0).then_some(m | bit)
    })?;
    if (on_path | state.1) & all != all {
        return None;
    }
    let mut placed = on_path;
    let mut steps = Vec::new();
    let mut place_keepers = |v: usize, steps: &mut Vec<(u8, usize)>| {
        for &(l, k) in &keeps[v] {
            if placed & 1 << l == 0 {
                placed |= 1 << l;
                steps.push((l, k));
            }
        }
    };
    place_keepers(0, &mut steps);
    for &(l, k, w) in &path {
        steps.push((l, k));
        place_keepers(w, &mut steps);
    }
    Some(steps)
}

/// An Euler trail from `first` to `last` through `edges` (from, to, ..): the edges' indices in
/// trail order, or `None` when there is none.
fn euler_trail(first: u64, last: u64, edges: &[(u64, u64, u8, usize)]) -> Option<Vec<usize>> {
    let mut balance: FastMap<u64, i64> = FastMap::default();
    let mut out: FastMap<u64, Vec<usize>> = FastMap::default();
    for (e, &(from, to, _, _)) in edges.iter().enumerate() {
        *balance.entry(from).or_default() += 1;
        *balance.entry(to).or_default() -= 1;
        out.entry(from).or_default().push(e);
    }
    if first != last {
        *balance.entry(first).or_default() -= 1;
        *balance.entry(last).or_default() += 1;
    }
    if balance.values().any(|&b| b != 0) {
        return None;
    }
    // Hierholzer: lanes in the order they ran (the lower lane first where there is a choice).
    for list in out.values_mut() {
        list.reverse();
    }
    let mut stack: Vec<(u64, Option<usize>)> = vec![(first, None)];
    let mut trail = Vec::with_capacity(edges.len());
    while let Some(&(v, e)) = stack.last() {
        match out.get_mut(&v).and_then(Vec::pop) {
            Some(next) => stack.push((edges[next].1, Some(next))),
            None => {
                stack.pop();
                if let Some(e) = e {
                    trail.push(e);
                }
            }
        }
    }
    trail.reverse();
    // Edges the walk from `first` never reached: not connected, no trail.
    (trail.len() == edges.len()).then_some(trail)
}

#[cfg(test)]
mod tests;
