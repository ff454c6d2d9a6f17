//! Small text helpers that several modules of the crate need (the DS table's and the target
//! table's "did you mean", LLVM's integer syntax), kept below both so neither imports the other.

/// Levenshtein distance between two ASCII strings.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Reads an unsigned integer as LLVM's assembler does: decimal, `0x`/`0X` hex, `0b` binary, or
/// octal with a leading `0`.
pub fn parse_int(text: &str) -> Option<u32> {
    let t = text.trim();
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        (b, 2)
    } else if t.len() > 1 && t.starts_with('0') {
        (&t[1..], 8)
    } else {
        (t, 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    // Values past u32 are still numbers: saturate so the range check names them.
    Some(u64::from_str_radix(digits, radix).map_or(u32::MAX, |v| v.min(u64::from(u32::MAX)) as u32))
}
