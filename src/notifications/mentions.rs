//! Mentions in a note: `@Display Name` of an active agent.
//!
//! Matched against the agents' display names, case-insensitively: an `@` that starts a word
//! (not the one inside `ann@example.com`), followed by a name that ends at a word boundary
//! (`@Ann` does not mention "Ann" in `@Annabel`). When several names fit (`@Ann Lee` and
//! `@Ann`), the longest wins, so "Ann Lee" is mentioned and "Ann" is not.

use uuid::Uuid;

/// An agent who can be mentioned.
#[derive(Debug, Clone)]
pub struct Mentionable {
    pub agent_id: Uuid,
    pub display_name: String,
}

/// The agents `body` mentions, each once, in the order first mentioned.
pub fn mentioned(body: &str, agents: &[Mentionable]) -> Vec<Uuid> {
    let mut found: Vec<Uuid> = Vec::new();
    let mut previous: Option<char> = None;
    for (at, c) in body.char_indices() {
        let starts_word = previous.is_none_or(|p| !is_word(p));
        previous = Some(c);
        if c != '@' || !starts_word {
            continue;
        }
        let rest = &body[at + 1..];
        let longest = agents
            .iter()
            .filter_map(|agent| Some((agent, name_length(rest, &agent.display_name)?)))
            .max_by_key(|(_, length)| *length);
        if let Some((agent, _)) = longest
            && !found.contains(&agent.agent_id)
        {
            found.push(agent.agent_id);
        }
    }
    found
}

/// How many characters of `text` the name takes when `text` starts with it (ignoring case)
/// and the name ends a word there.
fn name_length(text: &str, name: &str) -> Option<usize> {
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    let mut chars = text.chars();
    let mut length = 0;
    for expected in name.chars() {
        let got = chars.next()?;
        if !got.to_lowercase().eq(expected.to_lowercase()) {
            return None;
        }
        length += 1;
    }
    match chars.next() {
        Some(next) if is_word(next) => None,
        _ => Some(length),
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agents(names: &[&str]) -> Vec<Mentionable> {
        names
            .iter()
            .map(|name| Mentionable {
                agent_id: Uuid::new_v4(),
                display_name: (*name).to_owned(),
            })
            .collect()
    }

    #[test]
    fn a_mention_names_an_agent_case_insensitively() {
        let team = agents(&["Tom Baker", "Olivia"]);
        assert_eq!(
            mentioned("can you look, @tom baker?", &team),
            [team[0].agent_id]
        );
        assert_eq!(mentioned("@OLIVIA: thanks", &team), [team[1].agent_id]);
        assert!(mentioned("no mention of Tom Baker here", &team).is_empty());
    }

    #[test]
    fn the_longest_name_wins() {
        let team = agents(&["Ann", "Ann Lee"]);
        assert_eq!(mentioned("@Ann Lee please", &team), [team[1].agent_id]);
        assert_eq!(mentioned("@Ann please", &team), [team[0].agent_id]);
    }

    #[test]
    fn a_name_ends_at_a_word_boundary() {
        let team = agents(&["Ann"]);
        assert!(mentioned("@Annabel, hi", &team).is_empty());
        assert!(mentioned("@Ann_x", &team).is_empty());
        assert_eq!(mentioned("@Ann.", &team), [team[0].agent_id]);
        assert_eq!(mentioned("(@ann)", &team), [team[0].agent_id]);
    }

    #[test]
    fn an_address_is_not_a_mention() {
        let team = agents(&["example"]);
        assert!(mentioned("write to ann@example.com", &team).is_empty());
    }

    #[test]
    fn each_agent_is_mentioned_once_in_order() {
        let team = agents(&["Ann", "Bob"]);
        assert_eq!(
            mentioned("@Bob and @Ann, @bob again", &team),
            [team[1].agent_id, team[0].agent_id]
        );
    }

    #[test]
    fn names_with_accents_match_ignoring_case() {
        let team = agents(&["Élodie"]);
        assert_eq!(mentioned("@élodie look", &team), [team[0].agent_id]);
        assert!(mentioned("@", &team).is_empty());
    }
}
