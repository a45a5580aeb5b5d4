//! Filling a canned response's placeholders: `{{contact.name}}`, `{{agent.displayName}}` and
//! `{{workspace.name}}` (spaces inside the braces allowed), each optionally with a fallback
//! for when its value is empty: `{{contact.name | fallback: "there"}}` (Liquid's spelling, so
//! writers who know it need nothing new; single or double quotes, spaces anywhere between
//! the parts). Without a fallback an empty value renders as nothing.
//!
//! One pass over the template, so a value is never itself scanned for placeholders (a contact
//! named `{{agent.displayName}}` stays exactly that). Anything else in braces is left as
//! written. Deliberately not a template engine: the body is written by Owners and read by
//! contacts, and needs three substitutions, not loops, escaping rules or errors. The one
//! thing refused is a known placeholder with a filter that is not a well-formed fallback
//! ([`check`], when a canned response is saved): left as written it would reach a contact as
//! `{{contact.name | falback: there}}`, and its writer can fix it on the spot.
//!
//! Linear in the body's length: a placeholder is looked for only within [`MAX_PLACEHOLDER`]
//! bytes of an opening, so a body of 50,000 `{{` costs no more than any other 100 KB
//! (searching the whole rest after every `{{` was quadratic, half a second per render on a
//! runtime thread).

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
/// fallback of some 80 characters and generous spacing); anything longer is left as written.
pub const MAX_PLACEHOLDER: usize = 120;

/// What follows a `{{`.
#[derive(Debug, PartialEq, Eq)]
enum Found<'t> {
    /// A placeholder, and the bytes it takes after the `{{` (its `}}` included).
    Placeholder {
        key: &'t str,
        fallback: Option<&'t str>,
        len: usize,
    },
    /// A known key followed by something that is not a fallback (or no `}}`).
    Malformed,
    /// Text that merely has braces.
    Text,
}

/// A cursor over the text after a `{{`, bounded to the placeholder window.
struct Cursor<'t> {
    text: &'t str,
    at: usize,
}

impl<'t> Cursor<'t> {
    fn skip_spaces(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, expected: &str) -> bool {
        self.skip_spaces();
        let found = self.text[self.at..].starts_with(expected);
        if found {
            self.at += expected.len();
        }
        found
    }

    /// A run of the characters a key is made of.
    fn key(&mut self) -> &'t str {
        self.skip_spaces();
        let rest = &self.text[self.at..];
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_'))
            .unwrap_or(rest.len());
        self.at += len;
        &rest[..len]
    }

    /// A string in single or double quotes (no escapes: the other quote is the way to write
    /// one); `None` when there is none or it is not closed.
    fn quoted(&mut self) -> Option<&'t str> {
        self.skip_spaces();
        let rest = &self.text[self.at..];
        let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let inner = &rest[1..];
        let close = inner.find(quote)?;
        self.at += 1 + close + 1;
        Some(&inner[..close])
    }
}

/// What the text after a `{{` is, looking no further than [`MAX_PLACEHOLDER`] bytes and its
/// closing `}}`.
fn find(after_open: &str) -> Found<'_> {
    let mut end = after_open.len().min(MAX_PLACEHOLDER + 2);
    while !after_open.is_char_boundary(end) {
        end -= 1;
    }
    let mut cursor = Cursor {
        text: &after_open[..end],
        at: 0,
    };
    let key = cursor.key();
    if !KEYS.contains(&key) {
        return Found::Text;
    }
    if cursor.eat("}}") {
        return Found::Placeholder {
            key,
            fallback: None,
            len: cursor.at,
        };
    }
    let introduced = cursor.eat("|") && cursor.eat("fallback") && cursor.eat(":");
    let fallback = if introduced { cursor.quoted() } else { None };
    match fallback {
        Some(fallback) if cursor.eat("}}") => Found::Placeholder {
            key,
            fallback: Some(fallback),
            len: cursor.at,
        },
        _ => Found::Malformed,
    }
}

pub fn render(template: &str, values: Values<'_>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let inside = &rest[open + 2..];
        match find(inside) {
            Found::Placeholder { key, fallback, len } => {
                let value = values.get(key).unwrap_or_default();
                let shown = match fallback {
                    Some(fallback) if value.trim().is_empty() => fallback,
                    _ => value,
                };
                out.push_str(shown);
                rest = &inside[len..];
            }
            Found::Malformed | Found::Text => {
                out.push_str("{{");
                rest = inside;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A body as saved: refused when a known placeholder carries a filter that is not a
/// well-formed `| fallback: "…"`, naming it.
pub fn check(template: &str) -> Result<(), String> {
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        let inside = &rest[open + 2..];
        if find(inside) == Found::Malformed {
            let shown: String = inside.chars().take(40).collect();
            return Err(format!(
                "has a malformed placeholder at {{{{{shown}: write it as {{{{contact.name | fallback: \"there\"}}}}"
            ));
        }
        rest = inside;
    }
    Ok(())
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

    const ANONYMOUS: Values<'static> = Values {
        contact_name: "",
        ..VALUES
    };

    #[test]
    fn an_empty_value_takes_its_fallback() {
        for template in [
            r#"Hi {{contact.name | fallback: "there"}}!"#,
            "Hi {{contact.name | fallback: 'there'}}!",
            r#"Hi {{contact.name|fallback:"there"}}!"#,
            "Hi {{  contact.name  |  fallback  :  'there'  }}!",
        ] {
            assert_eq!(render(template, ANONYMOUS), "Hi there!", "{template}");
            assert_eq!(render(template, VALUES), "Hi Carla!", "{template}");
        }
        let blank = Values {
            contact_name: "  ",
            ..VALUES
        };
        assert_eq!(
            render("{{contact.name | fallback: \"there\"}}", blank),
            "there"
        );
    }

    #[test]
    fn a_fallback_may_hold_the_other_quote_braces_and_nothing() {
        assert_eq!(
            render(r#"{{contact.name | fallback: "friend's"}}"#, ANONYMOUS),
            "friend's"
        );
        assert_eq!(
            render("{{contact.name | fallback: 'a \"b\" }}'}}", ANONYMOUS),
            "a \"b\" }}"
        );
        assert_eq!(
            render("Hi{{contact.name | fallback: ''}}.", ANONYMOUS),
            "Hi."
        );
        // The fallback is text, never scanned again.
        assert_eq!(
            render(
                "{{contact.name | fallback: '{{workspace.name}}'}}",
                ANONYMOUS
            ),
            "{{workspace.name}}"
        );
    }

    #[test]
    fn without_a_fallback_an_empty_value_renders_empty() {
        assert_eq!(render("Hi {{contact.name}}!", ANONYMOUS), "Hi !");
    }

    #[test]
    fn a_malformed_fallback_is_left_as_written_and_refused_on_save() {
        for template in [
            "{{contact.name | fallback: there}}",
            "{{contact.name | fallback: 'there}}",
            "{{contact.name | falback: 'there'}}",
            "{{contact.name | fallback 'there'}}",
            "{{contact.name | 'there'}}",
            "{{contact.name | fallback: 'there' x}}",
            "{{contact.name fallback: 'there'}}",
            "{{contact.name",
        ] {
            assert_eq!(render(template, ANONYMOUS), template, "{template}");
            let error = check(template).expect_err(template);
            assert!(error.contains("{{contact.name"), "{error}");
        }
    }

    #[test]
    fn text_that_merely_has_braces_is_saved_as_it_is() {
        for template in [
            "",
            "Hi {{contact.name}} and {{ workspace.name | fallback: 'us' }}",
            "{{unknown}} and {{contact.email | fallback: 'x'}}",
            "}} {{",
            "{{ {{contact.name}}",
            "{{contact.names}}",
        ] {
            assert_eq!(check(template), Ok(()), "{template}");
        }
        assert_eq!(check(&"{{".repeat(25_000)), Ok(()));
    }
}
