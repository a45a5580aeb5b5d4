//! The inbox's shared vocabulary: what conversations, tickets and canned responses all speak
//! of, kept here so that none of them reaches into another for it.
//!
//! Conversations and tickets both name a contact, both are assigned to agents, both carry a
//! priority, and all three accept free text under the same rules. Kept in any one of them,
//! these would make the other two depend on it for things that are not about it (tickets on
//! conversations, say); kept here, each capability depends on the inbox and on nothing of
//! its siblings'.
//!
//! - `contacts`: the people writing in, one per email address, created on first mention.
//! - `assignee`: who work may be assigned to, who is acting, and the `assignee` list filter.
//! - `priority`: `low`, `medium`, `high`, `urgent`.
//! - `text`: trimmed, bounded free text (subjects, titles, bodies).

pub mod assignee;
pub mod contacts;
pub mod display_name;
pub mod priority;
pub mod text;
