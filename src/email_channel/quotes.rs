//! A reply's own words apart from the history it quotes and the sender's signature. Agents read
//! the new words in the conversation; the rest is kept beside them (collapsed, never lost),
//! because a quote is sometimes all a customer sends.
//!
//! The history starts at the first of: an attribution line as mail clients write it ("On ...
//! wrote:", also split over two lines; "Le ... a écrit :", "Am ... schrieb ...:"), Outlook's
//! "-----Original Message-----" or its "From: ... / Sent: ..." header block, a forwarded
//! message's marker, or a run of `>` lines that goes to the end. A signature starts at the
//! `-- ` line (RFC 3676) or a "Sent from my ..." line.

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
    let cut = (0..lines.len())
        .find(|&i| starts_history(&lines, i))
        .unwrap_or(lines.len());
    let new = lines[..cut].join("\n").trim().to_owned();
    let rest = lines[cut..].join("\n").trim().to_owned();
    if new.is_empty() {
        // Nothing but history (a bare forward): all of it is the message.
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

fn starts_history(lines: &[&str], i: usize) -> bool {
    let line = lines[i].trim();
    let next = lines.get(i + 1).map_or("", |l| l.trim());
    let lower = line.to_lowercase();
    if lines[i].trim_end_matches('\r') == "-- " {
        return true;
    }
    if lower.starts_with("sent from my ") || lower.starts_with("get outlook for ") {
        return true;
    }
    if lower.contains("original message") && line.starts_with('-') {
        return true;
    }
    if lower.starts_with("---------- forwarded message") || lower.starts_with("begin forwarded") {
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
        return lines[i..]
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
    fn a_bare_forward_is_kept_whole() {
        let s = split("---------- Forwarded message ---------\nFrom: a@example.com\n\nHelp");
        assert!(s.new.contains("Help"));
        assert_eq!(s.collapsed, None);
    }
}
