//! Compares what a device left against what the model expects, as bits: all four vdst words of
//! every lane (active lanes must match the model, inactive lanes must keep their sentinel,
//! which the model also returns), the addr register of ops that write it, and the whole LDS image
//! (docs/design-notes.md, "Runs at scale"). Floats are compared as bit patterns, never as host floats.

use ds_isa::ds::OpInfo;
use ds_reference::wave::Outcome;
use serde::{Deserialize, Serialize};
use std::fmt;

/// One place where device and model differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "where", rename_all = "snake_case")]
pub enum Difference {
    /// A vdst word of one lane.
    Vdst {
        lane: usize,
        word: usize,
        active: bool,
        model: u32,
        device: u32,
    },
    /// The addr register of one lane (only ops that write it).
    Addr {
        lane: usize,
        active: bool,
        model: u32,
        device: u32,
    },
    /// One LDS dword, by byte offset.
    /// A DATA0 (`data: 0`) or DATA1 (`data: 1`) register word after the instruction (only for
    /// variants with `regs`, where VDST may overlap them).
    Data {
        lane: usize,
        data: u8,
        word: usize,
        active: bool,
        model: u32,
        device: u32,
    },
    Lds {
        at: u32,
        model: u32,
        device: u32,
    },
    /// The images have different sizes (a broken readback).
    LdsSize {
        model: u32,
        device: u32,
    },
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Difference::Vdst {
                lane,
                word,
                active,
                model,
                device,
            } => write!(
                f,
                "lane {lane} ({}) vdst[{word}]: model {model:#010x}, device {device:#010x}",
                if active { "active" } else { "inactive" }
            ),
            Difference::Addr {
                lane,
                active,
                model,
                device,
            } => write!(
                f,
                "lane {lane} ({}) addr: model {model:#010x}, device {device:#010x}",
                if active { "active" } else { "inactive" }
            ),
            Difference::Data {
                lane,
                data,
                word,
                active,
                model,
                device,
            } => write!(
                f,
                "lane {lane} ({}) data{data}[{word}]: model {model:#010x}, device {device:#010x}",
                if active { "active" } else { "inactive" }
            ),
            Difference::Lds { at, model, device } => {
                write!(
                    f,
                    "lds[{at:#06x}]: model {model:#010x}, device {device:#010x}"
                )
            }
            Difference::LdsSize { model, device } => {
                write!(f, "lds size: model {model} bytes, device {device} bytes")
            }
        }
    }
}

/// Every difference between `model` and `device` for an op described by `info`, run with `exec`:
/// lanes first (ascending), then LDS words (ascending).
pub fn diff(info: &OpInfo, exec: u64, model: &Outcome, device: &Outcome) -> Vec<Difference> {
    let mut out = Vec::new();
    // Both outcomes come from the variant (the ABI unpacks one record per lane of its wave size).
    let lanes = model.vdst.len().min(device.vdst.len());
    // The ABI stores all four vdst words of every lane: words the op does not write must keep
    // their sentinel, which the model returns unchanged.
    for lane in 0..lanes {
        let active = exec >> lane & 1 == 1;
        for word in 0..4 {
            let (m, d) = (model.vdst[lane][word], device.vdst[lane][word]);
            if m != d {
                out.push(Difference::Vdst {
                    lane,
                    word,
                    active,
                    model: m,
                    device: d,
                });
            }
        }
        // The addr register changes only where a result lands in it (the BVH stack op, or VDST
        // overlapping it under `regs`); any other change of it is a difference too.
        if info.operands.addr > 0 && model.addr[lane] != device.addr[lane] {
            out.push(Difference::Addr {
                lane,
                active,
                model: model.addr[lane],
                device: device.addr[lane],
            });
        }
    }
    for (data, (m, d)) in [
        (0u8, (&model.data0, &device.data0)),
        (1, (&model.data1, &device.data1)),
    ] {
        let (Some(m), d) = (m, d) else { continue };
        for (lane, mw) in m.iter().enumerate() {
            for word in 0..4 {
                let dv = d
                    .as_ref()
                    .and_then(|d| d.get(lane))
                    .map_or(mw[word] ^ u32::MAX, |d| d[word]);
                if mw[word] != dv {
                    out.push(Difference::Data {
                        lane,
                        data,
                        word,
                        active: exec >> lane & 1 == 1,
                        model: mw[word],
                        device: dv,
                    });
                }
            }
        }
    }
    if model.lds.size() != device.lds.size() {
        out.push(Difference::LdsSize {
            model: model.lds.size(),
            device: device.lds.size(),
        });
        return out;
    }
    let (m, d) = (model.lds.bytes(), device.lds.bytes());
    if m != d {
        for at in (0..model.lds.size()).step_by(4) {
            let (mw, dw) = (model.lds.word(at), device.lds.word(at));
            if mw != dw {
                out.push(Difference::Lds {
                    at,
                    model: mw,
                    device: dw,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ds_isa::ds::DsOp;
    use ds_reference::wave::{Lds, WaveSize};

    fn outcome() -> Outcome {
        Outcome {
            lds: Lds::zeroed(16),
            vdst: vec![[7; 4]; WaveSize::Wave32.lanes()],
            addr: vec![0; WaveSize::Wave32.lanes()],
            data0: None,
            data1: None,
        }
    }

    #[test]
    fn equal_outcomes_have_no_differences() {
        let info = DsOp::from_name("ds_load_b64").unwrap().info();
        assert!(diff(info, WaveSize::Wave32.full_exec(), &outcome(), &outcome()).is_empty());
    }

    #[test]
    fn a_changed_vdst_word_is_reported_with_lane_word_and_activity() {
        let info = DsOp::from_name("ds_load_b64").unwrap().info();
        let mut dev = outcome();
        dev.vdst[5][1] = 9;
        let d = diff(info, 0b10_0000, &outcome(), &dev);
        assert_eq!(
            d,
            vec![Difference::Vdst {
                lane: 5,
                word: 1,
                active: true,
                model: 7,
                device: 9
            }]
        );
        assert_eq!(
            d[0].to_string(),
            "lane 5 (active) vdst[1]: model 0x00000007, device 0x00000009"
        );
    }

    #[test]
    fn lds_words_and_inactive_lanes_are_compared() {
        let info = DsOp::from_name("ds_store_b32").unwrap().info();
        let mut dev = outcome();
        dev.lds.set_word(12, 1);
        let d = diff(info, 0, &outcome(), &dev);
        assert_eq!(
            d,
            vec![Difference::Lds {
                at: 12,
                model: 0,
                device: 1
            }]
        );
        let info = DsOp::from_name("ds_load_b32").unwrap().info();
        let mut dev = outcome();
        dev.vdst[31][0] = 0;
        let d = diff(info, 1, &outcome(), &dev);
        assert!(matches!(
            d[..],
            [Difference::Vdst {
                lane: 31,
                active: false,
                ..
            }]
        ));
    }
}
