//! Free text fields (subjects, bodies, titles) as the conversation, ticket and canned-response
//! endpoints accept them: trimmed, and within a length counted in characters.

/// Longest conversation message: an agent's reply or note, or a visitor's message, whichever
/// channel carries it. One bound for all of them, so what an agent can write a visitor can
/// too, and the clients' counters show the same number the server enforces.
pub const MESSAGE_MAX_CHARS: usize = 10_000;
/// Longest ticket description, ticket comment or canned-response body: longer documents than
/// a chat message, with their own bound.
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

#[cfg(test)]
mod tests {
    use super::*;

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
