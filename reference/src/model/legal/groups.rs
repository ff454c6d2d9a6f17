//! The lanes of one instruction that share LDS bytes: each active lane's footprint (the bytes
//! it may read or write) and the groups of lanes whose footprints overlap, transitively; and
//! where a device outcome first differs from the model's, in words.

use crate::model::Plan;
use crate::wave::{Case, Outcome};
use ds_isa::ds::Family;

/// No lane (in the table of each byte's first lane).
const NO_LANE: u8 = u8::MAX;

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
    let mut out = Vec::new();
    footprint_into(plan, case, i, &mut out);
    out
}

/// [`footprint`], appended to `out`.
fn footprint_into(plan: &Plan, case: &Case, i: usize, out: &mut Vec<u32>) {
    let lane = &case.wave.lanes[i];
    let size = u64::from(case.lds.size());
    let mut span = |at: u32, n: u32| {
        let at = u64::from(at);
        out.extend(
            (at..at + u64::from(n))
                .filter(|&b| b < size)
                .map(|b| b as u32),
        );
    };
    match plan.info.family {
        Family::CondXchg32 => span(lane.addr.wrapping_add(u32::from(plan.offset16)) & 0xfff8, 8),
        Family::StoreAddTid => span(
            crate::model::addtid_address(case.wave.m0, plan.offset16, i),
            4,
        ),
        Family::BvhStack => {
            let base = (lane.addr >> 18) * 4;
            for k in 0..64u32 {
                span(base.wrapping_add(k * 128), 4);
            }
        }
        _ => {
            let [a0, a1] = plan.addresses(lane.addr);
            span(a0, plan.elem_bytes);
            if plan.info.two_addresses() {
                span(a1, plan.elem_bytes);
            }
        }
    }
}

pub(super) fn groups(plan: &Plan, case: &Case) -> Vec<Group> {
    const LANES: usize = 64;
    let mut parent: [usize; LANES] = std::array::from_fn(|i| i);
    fn root(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    // The first lane to touch each byte (footprints hold in-range bytes only; lanes < 64).
    let mut owner = vec![NO_LANE; case.lds.size() as usize];
    // Every lane's footprint in one buffer: lane i's is `flat[at[i]..at[i + 1]]`.
    let mut flat: Vec<u32> = Vec::new();
    let mut at = [0usize; LANES + 1];
    assert!(
        case.wave.lanes.len() <= LANES,
        "a wave of more than 64 lanes"
    );
    for i in 0..case.wave.lanes.len() {
        if case.wave.active(i) {
            footprint_into(plan, case, i, &mut flat);
            for &b in &flat[at[i]..] {
                let b = b as usize;
                let j = owner[b];
                if j != NO_LANE {
                    let (a, c) = (root(&mut parent, i), root(&mut parent, usize::from(j)));
                    parent[a] = c;
                } else {
                    owner[b] = i as u8;
                }
            }
        }
        at[i + 1] = flat.len();
    }
    let print = |i: usize| &flat[at[i]..at[i + 1]];
    let mut by_root: Vec<(usize, Group)> = Vec::new();
    for i in case.wave.active_lanes() {
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
            g.same_element &= print(usize::from(first)) == print(i);
        }
        g.lanes.push(i as u8);
        g.bytes.extend(print(i));
    }
    by_root
        .into_iter()
        .map(|(_, mut g)| {
            if !g.bytes.is_sorted() {
                g.bytes.sort_unstable();
            }
            g.bytes.dedup();
            g
        })
        .collect()
}
