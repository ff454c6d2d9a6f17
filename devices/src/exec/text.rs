//! Text an external device sends (its name, version, details, error messages, stderr) made safe
//! to show and to keep: terminal escape sequences (ANSI CSI and OSC, ECMA-48 sections 5.4 and
//! 8.3.89) removed, other control characters shown as `\xNN`, and every piece cut to a bound, so
//! a hostile or broken device can neither drive the terminal nor fill a report.

/// Characters of one device message (an error, a detail value) kept; the rest is cut.
pub const MAX_MESSAGE_CHARS: usize = 2000;
/// Characters of a device's name, version or a detail key kept.
pub const MAX_NAME_CHARS: usize = 200;

/// `text` with terminal escape sequences removed and every other control character (C0, DEL,
/// C1) written as `\xNN`; tabs become spaces. Line breaks are control characters too: the
/// result is one line.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // ESC [ ... final byte (CSI), ESC ] ... BEL or ESC \ (OSC), ESC and one more.
            '\u{1b}' | '\u{9b}' | '\u{9d}' => {
                let kind = if c == '\u{1b}' { chars.next() } else { Some(c) };
                match kind {
                    Some('[') | Some('\u{9b}') => {
                        for d in chars.by_ref() {
                            if ('\u{40}'..='\u{7e}').contains(&d) {
                                break;
                            }
                        }
                    }
                    Some(']') | Some('\u{9d}') | Some('P') | Some('_') | Some('^') => {
                        while let Some(d) = chars.next() {
                            if d == '\u{7}' || d == '\u{9c}' {
                                break;
                            }
                            if d == '\u{1b}' && chars.peek() == Some(&'\\') {
                                chars.next();
                                break;
                            }
                        }
                    }
                    _ => {}
                }
            }
            '\t' => out.push(' '),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// [`printable`], cut to `max` characters (`...` and how many were cut mark the cut).
pub fn bounded(text: &str, max: usize) -> String {
    cut(&printable(text), max)
}

/// `text` cut to `max` characters, the cut marked.
pub fn cut(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max).collect();
    format!("{kept}... ({} more characters cut)", n - max)
}

/// A detail key as recordings and reports can hold it: printable, one line, no `: ` (the
/// recording's provenance line is `key: value`), bounded.
pub fn detail_key(key: &str) -> String {
    let k = bounded(key, MAX_NAME_CHARS).replace(':', ";");
    if k.trim().is_empty() {
        "(empty key)".to_string()
    } else {
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_go_and_control_characters_show() {
        assert_eq!(printable("\u{1b}[31mred\u{1b}[0m"), "red");
        assert_eq!(
            printable("a\u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{1b}\\b"),
            "alinkb"
        );
        assert_eq!(printable("x\ny\r\u{7}\u{7f}"), "x\\x0ay\\x0d\\x07\\x7f");
        assert_eq!(printable("tab\there"), "tab here");
        assert_eq!(printable("ünïcode ✓"), "ünïcode ✓");
    }

    #[test]
    fn long_text_is_cut_and_says_so() {
        let long = "x".repeat(5000);
        let c = bounded(&long, 100);
        assert!(c.starts_with(&"x".repeat(100)), "{c}");
        assert!(c.ends_with("(4900 more characters cut)"), "{c}");
        assert_eq!(bounded("short", 100), "short");
    }

    #[test]
    fn detail_keys_fit_a_provenance_line() {
        assert_eq!(detail_key("a: b\nc"), "a; b\\x0ac");
        assert_eq!(detail_key(" "), "(empty key)");
    }
}
