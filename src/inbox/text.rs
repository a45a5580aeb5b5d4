//! Free text fields (subjects, bodies, titles) as the conversation, ticket and canned-response
//! endpoints accept them: trimmed, and within a length counted in characters.

/// Longest conversation message: an agent's reply or note, a visitor's message. One limit on
/// both sides of a chat, so what an agent sends a visitor's widget can always show, and what
/// a visitor pastes is refused whole (with this number) rather than cut.
pub const MESSAGE_MAX_CHARS: usize = 10_000;
/// Longest ticket description, comment or canned-response body.
pub const BODY_MAX_CHARS: usize = 50_000;
/// Longest subject or title.
pub const SUBJECT_MAX_CHARS: usize = 255;

/// A required text: trimmed, not empty, at most `max_chars` characters.
pub fn required(value: &str, max_chars: usize) -> Result<String, String> {
    let value = value.trim();
    if value.is_empty() {
        return Err("must not be empty".into());
    }
    if value.chars().count() > max_chars {
        return Err(format!("must be at most {max_chars} characters"));
    }
    Ok(value.to_owned())
}

/// An optional text: absent or blank is `None`, otherwise as [`required`].
pub fn optional(value: Option<&str>, max_chars: usize) -> Result<Option<String>, String> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(value) => required(value, max_chars).map(Some),
    }
}

/// `text` as an `ILIKE` pattern that finds it anywhere in a value: its own `%`, `_` and `\`
/// taken literally (escaped with `\`, the default escape).
pub fn contains_pattern(text: &str) -> String {
    let mut pattern = String::with_capacity(text.len() + 2);
    pattern.push('%');
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_patterns_take_wildcards_literally() {
        assert_eq!(contains_pattern("50%_off\\"), "%50\\%\\_off\\\\%");
    }

    #[test]
    fn text_is_trimmed_and_bounded_in_characters() {
        assert_eq!(required("  hi  ", 2).unwrap(), "hi");
        assert_eq!(required("żółw", 4).unwrap(), "żółw");
        assert!(required("   ", 10).is_err());
        assert!(required("abc", 2).is_err());
        assert_eq!(optional(Some("  "), 5).unwrap(), None);
        assert_eq!(optional(None, 5).unwrap(), None);
        assert!(optional(Some("toolong"), 5).is_err());
    }
}
