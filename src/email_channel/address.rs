//! The addresses and marks that route mail: a workspace's forwarding address, the reply token
//! in the address our replies come from, and the conversation's number in their subject.
//!
//! - Forwarding address: `<slug>.<tag>@<INBOUND_EMAIL_DOMAIN>`; the tag is random per
//!   workspace (`public.workspaces.inbound_tag`), so the address cannot be guessed.
//! - Reply token: our replies come from `support+<token>@...` (the support address, or the
//!   forwarding address when the workspace set none) and ask for answers there; the token is
//!   the reply's own message id (random, 122 bits), so a token names exactly one thread and
//!   cannot be made up.
//! - Subject reference: our replies' subjects end in `[#<number>]`; it threads an answer only
//!   when its sender is the conversation's contact.

use supportdesk_core::outbox::messages::conversation_email;
use uuid::Uuid;

/// A workspace's forwarding address.
pub fn inbound_address(slug: &str, tag: &str, domain: &str) -> String {
    format!("{slug}.{tag}@{domain}")
}

/// The slug and tag of a forwarding address at `domain` (any `+token` dropped).
pub fn parse_inbound(address: &str, domain: &str) -> Option<(String, String)> {
    let address = address.trim().trim_start_matches('<').trim_end_matches('>');
    let (local, at) = address.rsplit_once('@')?;
    if !at.eq_ignore_ascii_case(domain) {
        return None;
    }
    let local = local.split('+').next()?.to_ascii_lowercase();
    let (slug, tag) = local.rsplit_once('.')?;
    (!slug.is_empty() && !tag.is_empty()).then(|| (slug.to_owned(), tag.to_owned()))
}

/// The reply token of an address (`local+<32 hex>@domain`).
pub fn reply_token(address: &str) -> Option<Uuid> {
    let (local, _) = address.trim().rsplit_once('@')?;
    let (_, token) = local.split_once('+')?;
    if token.len() != 32 {
        return None;
    }
    Uuid::try_parse(token).ok()
}

/// `address` with `token` after a `+` in its local part.
pub fn with_reply_token(address: &str, token: Uuid) -> String {
    conversation_email::with_reply_token(address, &token.simple().to_string())
}

/// The conversation number a subject refers to (`... [#42]`).
pub fn subject_reference(subject: &str) -> Option<i64> {
    let start = subject.rfind("[#")?;
    let rest = &subject[start + 2..];
    let end = rest.find(']')?;
    rest[..end].parse().ok().filter(|n: &i64| *n > 0)
}

/// The subject of our reply in a thread: `Re: ` once, and the conversation's reference.
pub fn reply_subject(subject: &str, number: i64) -> String {
    let base = subject.trim();
    let base = match subject_reference(base) {
        Some(_) => base
            .rfind("[#")
            .map_or(base, |at| base[..at].trim_end())
            .to_owned(),
        None => base.to_owned(),
    };
    let base = if base.is_empty() {
        "Your request".to_owned()
    } else {
        base
    };
    let lower = base.to_ascii_lowercase();
    let prefixed = if lower.starts_with("re:") || lower.starts_with("aw:") {
        base
    } else {
        format!("Re: {base}")
    };
    format!("{prefixed} [#{number}]")
}

/// The Message-ID of our message `id` (without brackets).
pub fn our_message_id(id: Uuid, domain: &str) -> String {
    format!("{}@{domain}", id.simple())
}

/// Whether a Message-ID is one we made (at our domain).
pub fn is_ours(message_id: &str, domain: &str) -> bool {
    message_id
        .rsplit_once('@')
        .is_some_and(|(local, at)| at.eq_ignore_ascii_case(domain) && local.len() == 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarding_addresses_round_trip() {
        let address = inbound_address("acme", "3f9a0c1b2d", "in.desk.test");
        assert_eq!(address, "acme.3f9a0c1b2d@in.desk.test");
        assert_eq!(
            parse_inbound(&address, "in.desk.test"),
            Some(("acme".into(), "3f9a0c1b2d".into()))
        );
        assert_eq!(
            parse_inbound("<ACME.3f9a0c1b2d+abc@In.Desk.Test>", "in.desk.test"),
            Some(("acme".into(), "3f9a0c1b2d".into()))
        );
        assert_eq!(
            parse_inbound("acme.3f9a0c1b2d@other.test", "in.desk.test"),
            None
        );
        assert_eq!(parse_inbound("acme@in.desk.test", "in.desk.test"), None);
    }

    #[test]
    fn reply_tokens_round_trip() {
        let token = Uuid::new_v4();
        let address = with_reply_token("support@acme.test", token);
        assert_eq!(reply_token(&address), Some(token));
        assert_eq!(with_reply_token(&address, token), address);
        assert_eq!(reply_token("support+news@acme.test"), None);
        assert_eq!(reply_token("support@acme.test"), None);
    }

    #[test]
    fn subjects_carry_the_conversation_number() {
        assert_eq!(
            reply_subject("Printer on fire", 42),
            "Re: Printer on fire [#42]"
        );
        assert_eq!(
            reply_subject("Re: Printer on fire [#42]", 42),
            "Re: Printer on fire [#42]"
        );
        assert_eq!(reply_subject("", 7), "Re: Your request [#7]");
        assert_eq!(subject_reference("Re: Printer on fire [#42]"), Some(42));
        assert_eq!(subject_reference("Printer on fire #42"), None);
        assert_eq!(subject_reference("[#x]"), None);
    }

    #[test]
    fn our_ids_are_recognised() {
        let id = our_message_id(Uuid::new_v4(), "in.desk.test");
        assert!(is_ours(&id, "in.desk.test"));
        assert!(!is_ours("abc@in.desk.test", "in.desk.test"));
        assert!(!is_ours(&id, "other.test"));
    }
}
