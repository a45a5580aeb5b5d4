//! Filling a canned response's placeholders: `{{contact.name}}`, `{{agent.displayName}}` and
//! `{{workspace.name}}` (spaces inside the braces allowed), each with an optional fallback for
//! when its value is empty: `{{contact.name | fallback: "there"}}` (single or double quotes).
//! An anonymous chat visitor has no name, and "Thanks for reaching out, !" is worse than no
//! greeting at all.
//!
//! One pass over the template, so a value is never itself scanned for placeholders (a contact
//! named `{{agent.displayName}}` stays exactly that). Anything else in braces is left as
//! written. Deliberately not a template engine: the body is written by Owners and read by
//! contacts, and needs three substitutions, not loops, escaping rules or errors. The one
//! mistake refused, when a body is saved ([`check`]), is a known placeholder whose filter is
//! not a fallback this can read: left as written, `{{contact.name | fallback: there}}` would
//! reach a contact verbatim, and its writer can fix it on the spot.
//!
//! Linear in the body's length: the closing braces are looked for only within
//! [`MAX_PLACEHOLDER`] bytes of an opening, so a body of 50,000 `{{` costs no more than any
//! other 100 KB (searching the whole rest after every `{{` was quadratic, half a second per
//! render on a runtime thread).

/// The values a canned response may use.
#[derive(Debug, Clone, Copy)]
pub struct Values<'a> {
    pub contact_name: &'a str,
    pub agent_display_name: &'a str,
    pub workspace_name: &'a str,
}

/// The placeholders' names, as written between the braces.
const KEYS: [&str; 3] = ["contact.name", "agent.displayName", "workspace.name"];

impl Values<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "contact.name" => Some(self.contact_name),
            "agent.displayName" => Some(self.agent_display_name),
            "workspace.name" => Some(self.workspace_name),
            _ => None,
        }
    }
}

/// The longest text between `{{` and `}}` that can be a placeholder (the longest key, a
/// fallback of [`MAX_FALLBACK`] characters, generous spacing); anything longer is left as
/// written.
pub const MAX_PLACEHOLDER: usize = 40 + 4 * MAX_FALLBACK;
/// The longest fallback, in characters.
pub const MAX_FALLBACK: usize = 100;

/// A placeholder's text between the braces: its key and its fallback, if it has one. `None`
/// when the text is not a placeholder (then it is left as written).
fn parse(inside: &str) -> Option<(&str, Option<&str>)> {
    let Some((key, filter)) = inside.split_once('|') else {
        return Some((inside.trim(), None));
    };
    let argument = filter
        .trim()
        .strip_prefix("fallback")?
        .trim_start()
        .strip_prefix(':')?;
    let argument = argument.trim();
    let quote = argument
        .chars()
        .next()
        .filter(|c| *c == '"' || *c == '\'')?;
    let fallback = argument.strip_prefix(quote)?.strip_suffix(quote)?;
    if fallback.contains(quote) || fallback.chars().count() > MAX_FALLBACK {
        return None;
    }
    Some((key.trim(), Some(fallback)))
}

/// The text between each `{{` and the first `}}` within [`MAX_PLACEHOLDER`] bytes after it.
fn braced(template: &str) -> impl Iterator<Item = &str> {
    template.match_indices("{{").filter_map(|(open, _)| {
        let inside = &template[open + 2..];
        let window = &inside.as_bytes()[..inside.len().min(MAX_PLACEHOLDER + 2)];
        let close = window.windows(2).position(|pair| pair == b"}}")?;
        // `}}` is ASCII, so `close` is a character boundary.
        Some(&inside[..close])
    })
}

/// A body as saved: refused, naming the placeholder, when a known placeholder carries a
/// filter that [`render`] cannot read (and would leave as written). Unknown names and other
/// braces are text, as they always were.
pub fn check(template: &str) -> Result<(), String> {
    for inside in braced(template) {
        let Some((key, _)) = inside.split_once('|') else {
            continue;
        };
        if KEYS.contains(&key.trim()) && parse(inside).is_none() {
            return Err(format!(
                "{{{{{inside}}}}} is not a placeholder with a fallback: write it as \
                 {{{{{key} | fallback: \"there\"}}}} (in single or double quotes, at most \
                 {MAX_FALLBACK} characters, without braces)",
                key = key.trim()
            ));
        }
    }
    Ok(())
}

pub fn render(template: &str, values: Values<'_>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let inside = &rest[open + 2..];
        let window = &inside.as_bytes()[..inside.len().min(MAX_PLACEHOLDER + 2)];
        let value = window
            .windows(2)
            .position(|pair| pair == b"}}")
            // `}}` is ASCII, so `close` is a character boundary.
            .and_then(|close| {
                let (key, fallback) = parse(&inside[..close])?;
                let value = values.get(key)?;
                let value = match fallback {
                    Some(fallback) if value.trim().is_empty() => fallback,
                    _ => value,
                };
                Some((value, close))
            });
        match value {
            Some((value, close)) => {
                out.push_str(value);
                rest = &inside[close + 2..];
            }
            None => {
                out.push_str("{{");
                rest = inside;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALUES: Values<'static> = Values {
        contact_name: "Carla",
        agent_display_name: "Ann from Acme",
        workspace_name: "Acme",
    };

    #[test]
    fn placeholders_are_filled() {
        assert_eq!(
            render(
                "Hi {{contact.name}}, {{ agent.displayName }} here, from {{workspace.name}}.",
                VALUES
            ),
            "Hi Carla, Ann from Acme here, from Acme."
        );
    }

    #[test]
    fn anything_else_is_left_as_written() {
        for text in [
            "",
            "no placeholders",
            "{{unknown}} and {{contact.email}}",
            "{{contact.name",
            "}} {{",
            "{single}",
        ] {
            assert_eq!(render(text, VALUES), text);
        }
        assert_eq!(render("{{ {{contact.name}}", VALUES), "{{ Carla");
    }

    #[test]
    fn a_placeholder_longer_than_the_cap_is_left_as_written() {
        let spaced = format!("{{{{contact.name{}}}}}", " ".repeat(MAX_PLACEHOLDER));
        assert_eq!(render(&spaced, VALUES), spaced);
        let within = format!("{{{{contact.name{}}}}}", " ".repeat(MAX_PLACEHOLDER - 12));
        assert_eq!(render(&within, VALUES), "Carla");
        // Multi-byte text right after the braces: the window never splits a character.
        let text = format!("{{{{{}}}}}", "é".repeat(MAX_PLACEHOLDER));
        assert_eq!(render(&text, VALUES), text);
    }

    #[test]
    fn an_empty_value_takes_its_fallback() {
        let anonymous = Values {
            contact_name: "",
            ..VALUES
        };
        for template in [
            r#"Thanks for reaching out, {{contact.name | fallback: "there"}}!"#,
            "Thanks for reaching out, {{ contact.name|fallback:'there' }}!",
            r#"Thanks for reaching out, {{contact.name | fallback : "there" }}!"#,
        ] {
            assert_eq!(
                render(template, anonymous),
                "Thanks for reaching out, there!"
            );
            assert_eq!(render(template, VALUES), "Thanks for reaching out, Carla!");
        }
        // A blank name is no name; no fallback leaves it empty, as before.
        let blank = Values {
            contact_name: "  ",
            ..VALUES
        };
        assert_eq!(
            render(r#"Hi {{contact.name | fallback: "you"}}"#, blank),
            "Hi you"
        );
        assert_eq!(render("Hi {{contact.name}}", anonymous), "Hi ");
        // Braces end a placeholder: one inside a fallback leaves the outer one as written.
        assert_eq!(
            render(
                r#"{{contact.name | fallback: "{{workspace.name}}"}}"#,
                anonymous
            ),
            r#"{{contact.name | fallback: "Acme"}}"#
        );
    }

    #[test]
    fn a_malformed_fallback_is_left_as_written() {
        for text in [
            r#"{{contact.name | fallback: there}}"#,
            r#"{{contact.name | fallback: "there'}}"#,
            r#"{{contact.name | default: "there"}}"#,
            r#"{{contact.name | fallback "there"}}"#,
            r#"{{contact.name | fallback: "a"b"}}"#,
            r#"{{unknown | fallback: "x"}}"#,
        ] {
            assert_eq!(render(text, VALUES), text);
        }
        let long = format!(
            r#"{{{{contact.name | fallback: "{}"}}}}"#,
            "x".repeat(MAX_FALLBACK + 1)
        );
        assert_eq!(render(&long, VALUES), long);
        let longest = format!(
            r#"{{{{contact.name | fallback: "{}"}}}}"#,
            "é".repeat(MAX_FALLBACK)
        );
        assert_eq!(
            render(
                &longest,
                Values {
                    contact_name: "",
                    ..VALUES
                }
            ),
            "é".repeat(MAX_FALLBACK)
        );
    }

    #[test]
    fn a_body_of_openings_is_copied_through() {
        let body = "{{".repeat(25_000);
        assert_eq!(render(&body, VALUES), body);
    }

    #[test]
    fn values_are_not_scanned_again() {
        let values = Values {
            contact_name: "{{workspace.name}}",
            ..VALUES
        };
        assert_eq!(
            render("{{contact.name}}/{{workspace.name}}", values),
            "{{workspace.name}}/Acme"
        );
    }

    #[test]
    fn every_key_has_a_value() {
        for key in KEYS {
            assert!(VALUES.get(key).is_some(), "{key}");
        }
    }

    #[test]
    fn a_known_placeholder_with_an_unreadable_fallback_is_refused_on_save() {
        for text in [
            r#"Hi {{contact.name | fallback: there}}"#,
            r#"Hi {{contact.name | fallback: "there'}}"#,
            r#"Hi {{ workspace.name | default: "us" }}"#,
            r#"{{contact.name | fallback "there"}}"#,
            r#"{{contact.name | fallback: "a"b"}}"#,
            r#"{{contact.name | fallback: "{{workspace.name}}"}}"#,
        ] {
            let error = check(text).expect_err(text);
            assert!(error.contains("fallback: \"there\""), "{error}");
        }
        let long = format!(
            r#"{{{{agent.displayName | fallback: "{}"}}}}"#,
            "x".repeat(MAX_FALLBACK + 1)
        );
        let error = check(&long).expect_err("too long a fallback");
        assert!(error.starts_with("{{agent.displayName |"), "{error}");
    }

    #[test]
    fn text_that_merely_has_braces_is_saved_as_it_is() {
        for text in [
            "",
            "Hi {{contact.name}} from {{ workspace.name | fallback: 'us' }}",
            r#"{{contact.name | fallback: ""}}"#,
            r#"{{unknown | fallback: x}} and {{contact.email | whatever}}"#,
            "{{contact.name",
            "}} {{ | }}",
            "{{ {{contact.name}}",
        ] {
            assert_eq!(check(text), Ok(()), "{text}");
        }
        assert_eq!(check(&"{{|".repeat(20_000)), Ok(()));
    }
}
