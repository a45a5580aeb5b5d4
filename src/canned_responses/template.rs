//! Filling a canned response's placeholders: `{{contact.name}}`, `{{agent.displayName}}` and
//! `{{workspace.name}}` (spaces inside the braces allowed).
//!
//! One pass over the template, so a value is never itself scanned for placeholders (a contact
//! named `{{agent.displayName}}` stays exactly that). Anything else in braces is left as
//! written. Deliberately not a template engine: the body is written by Owners and read by
//! contacts, and needs three substitutions, not loops, escaping rules or errors.
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

/// The longest text between `{{` and `}}` that can be a placeholder (the longest key with
/// generous spacing); anything longer is left as written.
pub const MAX_PLACEHOLDER: usize = 40;

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
            .and_then(|close| Some((values.get(inside[..close].trim())?, close)));
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
}
