//! The lanes of one instruction that share LDS bytes: each active lane's footprint (the bytes
//! it may read or write) and the groups of lanes whose footprints overlap, transitively; and
//! where a device outcome first differs from the model's, in words.

use crate::model::Plan;
use crate::wave::{Case, Outcome};
use ds_isa::ds::Family;
use std::collections::HashMap;

/// Where the model and the device first differ, in words.
pub(super) fn describe(model: &Outcome, device: &Outcome) -> String {
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
pub(super) struct Group {
    pub lanes: Vec<u8>,
    pub bytes: Vec<u32>,
    /// Every lane touches exactly the same bytes (one element, one address).
    pub same_element: bool,
}

/// The in-range bytes lane `i` may read or write.
pub(super) fn footprint(plan: &Plan, case: &Case, i: usize) -> Vec<u32> {
    let lane = &case.wave.lanes[i];
    let size = case.lds.size();
    let span = |at: u32, n: u32| (0..n).map(move |k| at as u64 + k as u64);
    let eb = plan.elem_bytes;
    let raw: Vec<u64> = match plan.info.family {
        Family::CondXchg32 => {
            span(lane.addr.wrapping_add(u32::from(plan.offset16)) & 0xfff8, 8).collect()
        }
        Family::StoreAddTid => span(
            crate::model::addtid_address(case.wave.m0, plan.offset16, i),
            4,
        )
        .collect(),
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

pub(super) fn groups(plan: &Plan, case: &Case) -> Vec<Group> {
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
