//! A reply's own words apart from the history it quotes and the sender's signature. Agents read
//! the new words in the conversation; the rest is kept beside them (collapsed, never lost),
//! because a quote is sometimes all a customer sends.
//!
//! The history starts at the first of: an attribution line as mail clients write it ("On ...
//! wrote:", also split over two lines; "Le ... a écrit :", "Am ... schrieb ...:"), Outlook's
//! "-----Original Message-----" or its "From: ... / Sent: ..." header block, or a run of `>`
//! lines that goes to the end. A signature starts at the `-- ` line (RFC 3676) or a "Sent from
//! my ..." line.
//!
//! A forwarded message is not history: the customer sends it to be read. From its marker
//! ("---------- Forwarded message ---------", "-------- Forwarded Message --------", "Begin
//! forwarded message:") on, everything stays in the message, its own quotes included; only
//! the sender's signature above it is collapsed. A marker inside the quoted history of a reply
//! is part of that history.

/// A text split into what is new and what is kept collapsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub new: String,
    /// The quoted history and the signature, as written; `None` when there is none.
    pub collapsed: Option<String>,
}

pub fn split(text: &str) -> Split {
    let text = text.replace("\r\n", "\n");
    let lines: Vec<&str> = text.lines().collect();
    let end = lines.len();
    let history = (0..end)
        .find(|&i| starts_quote(&lines, i, end))
        .unwrap_or(end);
    if let Some(forward) = (0..history).find(|&i| forwards(lines[i])) {
        return forwarded(&lines, forward);
    }
    let cut = (0..end)
        .find(|&i| starts_signature(lines[i]) || starts_quote(&lines, i, end))
        .unwrap_or(end);
    let new = lines[..cut].join("\n").trim().to_owned();
    let rest = lines[cut..].join("\n").trim().to_owned();
    if new.is_empty() {
        // Nothing but history: all of it is the message.
        return Split {
            new: rest,
            collapsed: None,
        };
    }
    Split {
        new,
        collapsed: (!rest.is_empty()).then_some(rest),
    }
}

/// The sender's words above the forwarded message at line `forward`, then the forwarded
/// message whole; what the sender wrote after their own words (a signature, a quote) is
/// collapsed.
fn forwarded(lines: &[&str], forward: usize) -> Split {
    let cut = (0..forward)
        .find(|&i| starts_signature(lines[i]) || starts_quote(lines, i, forward))
        .unwrap_or(forward);
    let own = lines[..cut].join("\n").trim().to_owned();
    let kept = lines[forward..].join("\n").trim().to_owned();
    let collapsed = lines[cut..forward].join("\n").trim().to_owned();
    Split {
        new: if own.is_empty() {
            kept
        } else {
            format!("{own}\n\n{kept}")
        },
        collapsed: (!collapsed.is_empty()).then_some(collapsed),
    }
}

/// A forwarded message's marker, as Gmail, Thunderbird, Outlook.com and Apple Mail write it.
fn forwards(line: &str) -> bool {
    let lower = line.trim().to_lowercase();
    (lower.starts_with('-') && lower.trim_matches('-').trim() == "forwarded message")
        || lower.starts_with("begin forwarded message")
}

/// The sender's signature: the `-- ` line, or a mobile client's "Sent from my ..." line.
fn starts_signature(line: &str) -> bool {
    let lower = line.trim().to_lowercase();
    line.trim_end_matches('\r') == "-- "
        || lower.starts_with("sent from my ")
        || lower.starts_with("get outlook for ")
}

/// Whether the quoted history of a reply starts at line `i` (of the lines before `end`).
fn starts_quote(lines: &[&str], i: usize, end: usize) -> bool {
    let line = lines[i].trim();
    let next = lines
        .get(i + 1)
        .filter(|_| i + 1 < end)
        .map_or("", |l| l.trim());
    let lower = line.to_lowercase();
    if lower.contains("original message") && line.starts_with('-') {
        return true;
    }
    if attribution(&lower)
        || (lower.starts_with("on ") && attribution(&format!("{lower} {}", next.to_lowercase())))
    {
        return true;
    }
    // Outlook: "From: ..." followed by "Sent: ..." or "Date: ...".
    if lower.starts_with("from:") {
        let next = next.to_lowercase();
        if next.starts_with("sent:") || next.starts_with("date:") {
            return true;
        }
    }
    // A block of quoted lines that runs to the end (blank lines allowed).
    if line.starts_with('>') {
        return lines[i..end]
            .iter()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('>'));
    }
    false
}

fn attribution(lower: &str) -> bool {
    (lower.starts_with("on ") && lower.ends_with("wrote:"))
        || (lower.starts_with("le ") && lower.ends_with("a écrit :"))
        || (lower.starts_with("am ") && lower.ends_with(':') && lower.contains("schrieb"))
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn gmail_attribution_starts_the_history() {
        let s = split(
            "Thanks, that worked.\n\nOn Tue, 3 Nov 2026 at 10:00, Support <support@acme.test> wrote:\n> Try turning it off.\n",
        );
        assert_eq!(s.new, "Thanks, that worked.");
        assert!(s.collapsed.unwrap().starts_with("On Tue"));
    }

    #[test]
    fn attribution_over_two_lines() {
        let s = split(
            "Yes.\n\nOn Tue, 3 Nov 2026 at 10:00, Support Team\n<support@acme.test> wrote:\n> Hi\n",
        );
        assert_eq!(s.new, "Yes.");
    }

    #[test]
    fn outlook_header_block_and_signature() {
        let s = split(
            "See attached.\n\nFrom: Support <support@acme.test>\nSent: Tuesday\nTo: me\nSubject: Re: x\n\nOld text",
        );
        assert_eq!(s.new, "See attached.");
        let s = split("Hello\n-- \nAnn\nACME Corp");
        assert_eq!(s.new, "Hello");
        assert_eq!(s.collapsed.as_deref(), Some("-- \nAnn\nACME Corp"));
        let s = split("Hello\n\nSent from my iPhone");
        assert_eq!(s.new, "Hello");
    }

    #[test]
    fn inline_quotes_in_the_middle_stay() {
        let s = split("> Is it broken?\nYes, since Monday.\n> Which version?\n2.1\n");
        assert_eq!(
            s.new,
            "> Is it broken?\nYes, since Monday.\n> Which version?\n2.1"
        );
        assert_eq!(s.collapsed, None);
    }

    #[test]
    fn a_forwarded_message_stays_in_the_message_with_its_own_quotes() {
        let s = split(
            "Please take this over.\n\n-- \nSofia\n\n\
             ---------- Forwarded message ---------\nFrom: Carrier <c@example.com>\n\
             Subject: Re: claim\n\nFile it as the sender.\n\n\
             On Mon, 23 Nov 2026 at 14:12, Sofia <s@example.se> wrote:\n> It arrived broken.\n",
        );
        assert_eq!(
            s.new,
            "Please take this over.\n\n---------- Forwarded message ---------\n\
             From: Carrier <c@example.com>\nSubject: Re: claim\n\nFile it as the sender.\n\n\
             On Mon, 23 Nov 2026 at 14:12, Sofia <s@example.se> wrote:\n> It arrived broken."
        );
        assert_eq!(s.collapsed.as_deref(), Some("-- \nSofia"));
        let thunderbird =
            split("FYI\n\n-------- Forwarded Message --------\nSubject: x\n\nOld words\n");
        assert!(thunderbird.new.ends_with("Old words"), "{thunderbird:?}");
        assert_eq!(thunderbird.collapsed, None);
    }

    #[test]
    fn a_forward_inside_the_quoted_history_is_history() {
        let s = split(
            "Thanks!\n\nOn Tue, 3 Nov 2026 at 10:00, Support <support@acme.test> wrote:\n\
             > ---------- Forwarded message ---------\n> From: a@example.com\n> Old\n",
        );
        assert_eq!(s.new, "Thanks!");
        assert!(s.collapsed.is_some_and(|c| c.contains("> Old")));
    }

    #[test]
    fn a_bare_forward_is_kept_whole() {
        let s = split("---------- Forwarded message ---------\nFrom: a@example.com\n\nHelp");
        assert!(s.new.contains("Help"));
        assert_eq!(s.collapsed, None);
    }
}
