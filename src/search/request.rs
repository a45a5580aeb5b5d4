//! `GET /api/search`'s query string, checked into what the statement runs.

use serde::Deserialize;
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::conversations::record::Channel;
use crate::error::{Error, Result};
use crate::inbox::assignee::AssigneeFilter;
use crate::inbox::priority::Priority;
use crate::tickets::record::TicketStatus;

/// The longest query accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 2000;

/// What a search looks through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SearchType {
    Conversations,
    Messages,
    Contacts,
    Tickets,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct SearchQuery {
    /// Web-search syntax: words (all must match), `"a phrase"`, `or`, `-word`. 1 to 2 000
    /// characters. Words match as written and by their English stem, accents ignored.
    #[param(min_length = 1, max_length = 2000, example = "refund -shipping")]
    pub q: Option<String>,
    /// Only results of this type; all four when absent.
    #[serde(rename = "type")]
    #[param(rename = "type", inline)]
    pub kind: Option<SearchType>,
    /// Conversations, their messages and tickets in this status (`closed` is a ticket's
    /// only). Contacts are left out when any of these filters is given.
    #[param(inline)]
    pub status: Option<TicketStatus>,
    /// `me`, `unassigned`, `all` (default) or an agent id: of conversations, their messages
    /// and tickets.
    pub assignee: Option<String>,
    /// Conversations and their messages of this channel.
    #[param(inline)]
    pub channel: Option<Channel>,
    /// Conversations, their messages and tickets of this priority.
    #[param(inline)]
    pub priority: Option<Priority>,
    /// Conversations with this label, and their messages.
    pub label: Option<Uuid>,
    /// Created at or after this time (RFC 3339): conversations and tickets by their
    /// creation, messages by their own.
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[param(value_type = Option<String>, format = DateTime)]
    pub created_after: Option<OffsetDateTime>,
    /// Created before this time (RFC 3339).
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[param(value_type = Option<String>, format = DateTime)]
    pub created_before: Option<OffsetDateTime>,
}

/// The filters beside the words; `Default` filters nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Filters {
    pub status: Option<TicketStatus>,
    pub assignee: AssigneeFilter,
    pub channel: Option<Channel>,
    pub priority: Option<Priority>,
    pub label: Option<Uuid>,
    pub created_after: Option<OffsetDateTime>,
    pub created_before: Option<OffsetDateTime>,
}

impl Filters {
    /// Whether any filter narrows the results (contacts have none of these fields).
    pub fn any(&self) -> bool {
        self.status.is_some()
            || self.assignee != AssigneeFilter::All
            || self.channel.is_some()
            || self.priority.is_some()
            || self.label.is_some()
            || self.created_after.is_some()
            || self.created_before.is_some()
    }

    /// Whether results of `kind` can pass these filters at all.
    pub fn admit(&self, kind: SearchType) -> bool {
        match kind {
            SearchType::Contacts => !self.any(),
            SearchType::Tickets => self.channel.is_none() && self.label.is_none(),
            SearchType::Conversations | SearchType::Messages => {
                self.status != Some(TicketStatus::Closed)
            }
        }
    }
}

/// A checked search.
#[derive(Debug, Clone)]
pub struct Search {
    /// The words as typed, trimmed.
    pub words: String,
    /// The types to look through, in a fixed order.
    pub kinds: Vec<SearchType>,
    pub filters: Filters,
}

/// The query's words: present, not blank, at most [`MAX_QUERY_CHARS`].
pub fn words(q: Option<String>) -> Result<String> {
    let q = q.unwrap_or_default();
    let words = q.trim();
    if words.is_empty() {
        return Err(Error::invalid_field("q", "must not be empty"));
    }
    if words.chars().count() > MAX_QUERY_CHARS {
        return Err(Error::invalid_field(
            "q",
            format!("must be at most {MAX_QUERY_CHARS} characters"),
        ));
    }
    Ok(words.to_owned())
}

/// The types a search looks through: the one asked for, or all four; then only those the
/// filters admit.
pub fn kinds(kind: Option<SearchType>, filters: &Filters) -> Vec<SearchType> {
    let all = [
        SearchType::Conversations,
        SearchType::Messages,
        SearchType::Tickets,
        SearchType::Contacts,
    ];
    all.into_iter()
        .filter(|k| kind.is_none_or(|wanted| wanted == *k))
        .filter(|k| filters.admit(*k))
        .collect()
}

/// `created_after` must come before `created_before`.
pub fn check_range(filters: &Filters) -> Result<()> {
    match (filters.created_after, filters.created_before) {
        (Some(after), Some(before)) if after >= before => Err(Error::invalid_field(
            "createdBefore",
            "must be later than createdAfter",
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_filters() -> Filters {
        Filters::default()
    }

    #[test]
    fn words_are_trimmed_and_must_be_there() {
        assert_eq!(words(Some("  refund ".into())).unwrap(), "refund");
        assert!(words(None).is_err());
        assert!(words(Some("   ".into())).is_err());
    }

    #[test]
    fn a_query_is_at_most_2000_characters() {
        assert!(words(Some("é".repeat(MAX_QUERY_CHARS))).is_ok());
        assert!(words(Some("é".repeat(MAX_QUERY_CHARS + 1))).is_err());
    }

    #[test]
    fn every_type_without_filters_and_one_when_asked() {
        assert_eq!(kinds(None, &no_filters()).len(), 4);
        assert_eq!(
            kinds(Some(SearchType::Contacts), &no_filters()),
            [SearchType::Contacts]
        );
    }

    #[test]
    fn filters_leave_out_the_types_that_lack_their_field() {
        let open = Filters {
            status: Some(TicketStatus::Open),
            ..no_filters()
        };
        assert_eq!(
            kinds(None, &open),
            [
                SearchType::Conversations,
                SearchType::Messages,
                SearchType::Tickets
            ]
        );
        let closed = Filters {
            status: Some(TicketStatus::Closed),
            ..no_filters()
        };
        assert_eq!(kinds(None, &closed), [SearchType::Tickets]);
        let chat = Filters {
            channel: Some(Channel::Chat),
            ..no_filters()
        };
        assert_eq!(
            kinds(None, &chat),
            [SearchType::Conversations, SearchType::Messages]
        );
        assert!(kinds(Some(SearchType::Contacts), &chat).is_empty());
    }
}
