//! Text from devices and files made safe where it is shown: on a terminal (escape sequences
//! removed, control characters as `\xNN`: ECMA-48 via `ds_devices::exec::text`), in markdown
//! (CommonMark 0.31, "Backslash escapes" and "Entity and numeric character references") and in
//! XML (XML 1.0, section 2.4).

/// Text shown on a terminal: escape sequences removed, control characters written as `\xNN`
/// (a device name or message can carry either).
pub fn terminal(text: &str) -> String {
    ds_devices::exec::text::printable(text)
}

/// Text safe as markdown (a table cell, a list item): printable ([`terminal`]), HTML's `&`, `<`
/// and `>` as entities (no tag, comment or entity of the text's survives), and markdown's
/// punctuation backslash-escaped (CommonMark 0.31, "Backslash escapes"), so the text shows as
/// written and never as markup.
pub fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in terminal(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` as a markdown code span: backticks around it, `` ` `` itself written as an
/// entity-free placeholder (a code span shows everything else literally).
pub fn code(text: &str) -> String {
    format!("`{}`", terminal(text).replace('`', "'"))
}

/// Escapes text for XML attributes and character data; drops characters XML 1.0 forbids.
pub fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escapes_markup_and_drops_control_characters() {
        assert_eq!(xml("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;");
    }

    #[test]
    fn markdown_shows_markup_as_text() {
        assert_eq!(
            md("<img src=x onerror=alert(1)> <!-- *a*|`b`"),
            "&lt;img src=x onerror=alert(1)&gt; &lt;!-- \\*a\\*\\|\\`b\\`"
        );
        // The control character shows as `\x0a`, its backslash escaped for markdown.
        assert_eq!(md("a\u{1b}[31mb\nc"), "ab\\\\x0ac");
        assert_eq!(code("x`y"), "`x'y`");
    }
}
