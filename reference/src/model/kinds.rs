//! The kinds of source a rule or an open question stands on, and where a reading of an open
//! question stands (reference/ASSUMPTIONS.md; docs/run-results.md, "Open questions"; `reference/ASSUMPTIONS.md` tags both in its text and
//! [`super::questions`] parses them).

use std::fmt;

/// How strong a source is, strongest first (reference/ASSUMPTIONS.md; docs/run-results.md, "Open questions").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Checked on the part: a test run on hardware, a fix confirmed on it.
    Hw,
    /// An AMD ISA guide: its pseudocode, and its prose where the two differ.
    Doc,
    /// Driver or compiler code that depends on the behaviour (RADV, GPURT, LLVM, Mesa, Triton).
    Drv,
    /// AMD's rocJITsu emulator: not hardware, but qualified against AMD's functional model.
    Emu,
}

impl Kind {
    /// Every kind, strongest first.
    pub const ALL: [Kind; 4] = [Kind::Hw, Kind::Doc, Kind::Drv, Kind::Emu];

    /// The tag ASSUMPTIONS.md writes in parentheses: `HW`, `DOC`, `DRV`, `EMU`.
    pub fn tag(self) -> &'static str {
        match self {
            Kind::Hw => "HW",
            Kind::Doc => "DOC",
            Kind::Drv => "DRV",
            Kind::Emu => "EMU",
        }
    }

    /// The kinds tagged in parentheses in `text` (`(DOC)`, or several with remarks: `(DOC,
    /// DRV)`, `(DRV, inference)`, `(EMU: what it says)`), strongest first, each once.
    pub fn tagged_in(text: &str) -> Vec<Kind> {
        let tagged: Vec<&str> = text
            .split('(')
            .skip(1)
            // Up to the closing parenthesis, or to the next opening one (a remark may hold some).
            .map(|rest| rest.split_once(')').map_or(rest, |(inside, _)| inside))
            .flat_map(|inside| inside.split(','))
            .map(|tag| tag.split_once(':').map_or(tag, |(kind, _)| kind).trim())
            .collect();
        Kind::ALL
            .into_iter()
            .filter(|k| tagged.contains(&k.tag()))
            .collect()
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tag())
    }
}

/// Where a reading stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Standing {
    /// The model's choice (one per question).
    Model,
    /// An outcome the legal check accepts besides the model's.
    Legal,
    /// An outcome that would be a disagreement with the model.
    Disagreement,
}

impl Standing {
    /// The word ASSUMPTIONS.md writes: `model`, `legal`, `disagreement`.
    pub fn word(self) -> &'static str {
        match self {
            Standing::Model => "model",
            Standing::Legal => "legal",
            Standing::Disagreement => "disagreement",
        }
    }

    /// The standing `word` names.
    pub fn parse(word: &str) -> Option<Standing> {
        [Standing::Model, Standing::Legal, Standing::Disagreement]
            .into_iter()
            .find(|s| s.word() == word)
    }

    /// Model or legal: an outcome the legal check accepts.
    pub fn accepted(self) -> bool {
        self != Standing::Disagreement
    }
}
