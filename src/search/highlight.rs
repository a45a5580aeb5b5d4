//! A snippet's marks, safe to show as HTML.
//!
//! `ts_headline` wraps each matched word in delimiters of our choosing and copies the rest of
//! the text as it is, markup included: a message that says `<img onerror=...>` would come back
//! as markup. So the statement marks matches with two characters of Unicode's private use
//! area (removed from the text beforehand, so only the marks carry them), and here the text
//! is HTML-escaped first and the marks become `<mark>` afterwards: the only element a snippet
//! can hold is `<mark>`, and every `<mark>` is closed.

/// Opens a match in `ts_headline`'s output.
pub const START: char = '\u{E000}';
/// Closes a match.
pub const STOP: char = '\u{E001}';

/// The `ts_headline` options: the marks, and 15 to 35 words around the best match (a short
/// text whole).
pub const OPTIONS: &str = "StartSel=\u{E000}, StopSel=\u{E001}, MaxWords=35, MinWords=15";

/// The snippet as HTML whose only element is `<mark>`.
pub fn to_html(snippet: &str) -> String {
    let mut html = String::with_capacity(snippet.len() + 16);
    let mut open = false;
    for c in snippet.chars() {
        match c {
            START if !open => {
                html.push_str("<mark>");
                open = true;
            }
            STOP if open => {
                html.push_str("</mark>");
                open = false;
            }
            START | STOP => {}
            '&' => html.push_str("&amp;"),
            '<' => html.push_str("&lt;"),
            '>' => html.push_str("&gt;"),
            '"' => html.push_str("&quot;"),
            '\'' => html.push_str("&#39;"),
            c => html.push(c),
        }
    }
    if open {
        html.push_str("</mark>");
    }
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_become_marks() {
        assert_eq!(
            to_html("my \u{E000}refund\u{E001} please"),
            "my <mark>refund</mark> please"
        );
    }

    #[test]
    fn markup_in_the_text_is_escaped() {
        assert_eq!(
            to_html("<img src=x onerror='alert(1)'> & \u{E000}\"refund\"\u{E001}"),
            "&lt;img src=x onerror=&#39;alert(1)&#39;&gt; &amp; <mark>&quot;refund&quot;</mark>"
        );
    }

    #[test]
    fn stray_marks_never_leave_an_element_open() {
        assert_eq!(to_html("a \u{E000}b"), "a <mark>b</mark>");
        assert_eq!(to_html("a\u{E001} b"), "a b");
        assert_eq!(
            to_html("\u{E000}\u{E000}x\u{E001}\u{E001}"),
            "<mark>x</mark>"
        );
    }
}
