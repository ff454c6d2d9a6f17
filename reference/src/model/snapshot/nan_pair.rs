//! The snapshot corpus's `nan_pair` case of the float adds (`ds_add_f32`, `ds_add_rtn_f32`,
//! `ds_pk_add_*`): memory and DATA both NaNs with different payloads, one of them signalling, so a
//! recording shows which input's NaN the hardware returns (ASSUMPTIONS.md F3 and N4: the
//! pseudocode has no NaN rule; the model takes memory's, quieted; either input's quieted or the
//! default NaN is legal). Lane 0 has memory's NaN quiet and DATA's signalling, lane 1 the other way
//! round with a negative quiet NaN, so a device that prefers the signalling NaN, the negative one or
//! DATA's shows it in one lane.

use ds_isa::ds::Elem;

/// (memory, DATA) of lanes 0 and 1 for element type `elem`, or `None` for other types.
pub fn lanes(elem: Elem) -> Option<[(u32, u32); 2]> {
    Some(match elem {
        // qNaN 1 | sNaN 2; sNaN 3 | -qNaN 4.
        Elem::F32 => [(0x7fc0_0001, 0x7f80_0002), (0x7f80_0003, 0xffc0_0004)],
        // Per half, low then high: qNaN 1 + sNaN 2 | sNaN 3 + -qNaN 4, and the halves swapped in
        // lane 1.
        Elem::F16x2 => [(0x7c03_7e01, 0xfe04_7c02), (0x7e01_7c03, 0x7c02_fe04)],
        Elem::Bf16x2 => [(0x7f83_7fc1, 0xffc4_7f82), (0x7fc1_7f83, 0x7f82_ffc4)],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::float::{self, F32};

    #[test]
    fn each_lane_holds_two_nans_with_different_payloads_one_signalling() {
        for elem in [Elem::F32, Elem::F16x2, Elem::Bf16x2] {
            for (m, d) in lanes(elem).unwrap() {
                assert_ne!(m, d);
                if elem == Elem::F32 {
                    assert!(float::is_nan(F32, m.into()) && float::is_nan(F32, d.into()));
                    assert!(float::is_snan(F32, m.into()) != float::is_snan(F32, d.into()));
                }
            }
        }
        // Both halves of an f16 pair are NaNs.
        for (m, d) in lanes(Elem::F16x2).unwrap() {
            for x in [m as u16, (m >> 16) as u16, d as u16, (d >> 16) as u16] {
                assert_eq!(x & 0x7c00, 0x7c00, "{x:#x}");
                assert_ne!(x & 0x3ff, 0, "{x:#x}");
            }
        }
        assert!(lanes(Elem::U32).is_none());
    }
}
