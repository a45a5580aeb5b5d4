//! The inbox's filters: what `GET /api/conversations` takes in its query string, and what a
//! saved view keeps (`crate::views`), in the same words, so a view is a link to the inbox and
//! a link is a view waiting to be saved.
//!
//! [`InboxFilters`] is the input as given; [`InboxFilters::resolve`] checks it and turns it
//! into the [`ListFilter`] the list query runs, resolving `assignee=me` to the caller's agent.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::conversations::record::{Channel, ConversationStatus, ListFilter};
use crate::error::{Error, FieldChecks, Result};
use crate::inbox::assignee::{AssigneeFilter, acting_agent};
use crate::inbox::priority::Priority;
use crate::tenancy::context::Tenant;

/// Every filter is optional; those given are combined (all must hold).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, IntoParams, ToSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct InboxFilters {
    /// Only conversations in this status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[param(inline)]
    pub status: Option<ConversationStatus>,
    /// `me`, `unassigned`, `all` (default) or an agent id. In a saved view, `me` is whoever
    /// looks at it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "me")]
    pub assignee: Option<String>,
    /// Only conversations with this label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<Uuid>,
    /// Only conversations of this channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[param(inline)]
    pub channel: Option<Channel>,
    /// Only conversations of this priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[param(inline)]
    pub priority: Option<Priority>,
    /// Created at or after this time (RFC 3339).
    #[serde(
        default,
        with = "time::serde::rfc3339::option",
        skip_serializing_if = "Option::is_none"
    )]
    #[param(value_type = Option<String>, format = DateTime)]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub created_after: Option<OffsetDateTime>,
    /// Created before this time (RFC 3339).
    #[serde(
        default,
        with = "time::serde::rfc3339::option",
        skip_serializing_if = "Option::is_none"
    )]
    #[param(value_type = Option<String>, format = DateTime)]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub created_before: Option<OffsetDateTime>,
    /// Changed (a message, a status, an assignment...) at or after this time (RFC 3339).
    #[serde(
        default,
        with = "time::serde::rfc3339::option",
        skip_serializing_if = "Option::is_none"
    )]
    #[param(value_type = Option<String>, format = DateTime)]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub updated_after: Option<OffsetDateTime>,
    /// Changed before this time (RFC 3339).
    #[serde(
        default,
        with = "time::serde::rfc3339::option",
        skip_serializing_if = "Option::is_none"
    )]
    #[param(value_type = Option<String>, format = DateTime)]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub updated_before: Option<OffsetDateTime>,
    /// `true`: only conversations with incoming messages the caller has not read (members
    /// only: an API key reads nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unread: Option<bool>,
}

/// The names of [`InboxFilters`]' fields on the wire: a saved view refuses any other.
pub const FILTER_NAMES: [&str; 10] = [
    "status",
    "assignee",
    "label",
    "channel",
    "priority",
    "createdAfter",
    "createdBefore",
    "updatedAfter",
    "updatedBefore",
    "unread",
];

impl InboxFilters {
    /// The checks that need no database: the assignee's form and the ranges' order. Every
    /// field in error at once.
    pub fn check(&self) -> Result<()> {
        let mut checks = FieldChecks::default();
        if let Some(assignee) = self.assignee.as_deref()
            && !matches!(assignee, "me" | "unassigned" | "all")
            && assignee.parse::<Uuid>().is_err()
        {
            checks.add("assignee", "must be me, unassigned, all or an agent id");
        }
        for (field, message, after, before) in [
            (
                "createdBefore",
                "must be later than createdAfter",
                self.created_after,
                self.created_before,
            ),
            (
                "updatedBefore",
                "must be later than updatedAfter",
                self.updated_after,
                self.updated_before,
            ),
        ] {
            if let (Some(after), Some(before)) = (after, before)
                && after >= before
            {
                checks.add(field, message);
            }
        }
        if checks.is_empty() {
            Ok(())
        } else {
            Err(checks.failed())
        }
    }

    /// The list filter these stand for, read by the caller of `tenant`.
    pub async fn resolve(&self, tenant: &mut Tenant) -> Result<ListFilter> {
        self.check()?;
        let needs_me = self.assignee.as_deref() == Some("me") || self.unread == Some(true);
        let me = match tenant.actor.member_id() {
            Ok(_) if needs_me => {
                let actor = tenant.actor.clone();
                let (conn, schema) = tenant.parts();
                Some(acting_agent(conn, schema, &actor).await?)
            }
            _ => None,
        };
        self.for_agent(me)
    }

    /// The list filter these stand for, read by the agent `me` (`None`: an API key). `check`
    /// comes first.
    pub fn for_agent(&self, me: Option<Uuid>) -> Result<ListFilter> {
        let assignee =
            match self.assignee.as_deref() {
                None | Some("all") => AssigneeFilter::All,
                Some("unassigned") => AssigneeFilter::Unassigned,
                Some("me") => AssigneeFilter::Agent(me.ok_or_else(|| {
                    Error::invalid_field("assignee", "an API key is nobody's `me`")
                })?),
                Some(other) => AssigneeFilter::Agent(other.parse().map_err(|_| {
                    Error::invalid_field("assignee", "must be me, unassigned, all or an agent id")
                })?),
            };
        let unread = self.unread == Some(true);
        if unread && me.is_none() {
            return Err(Error::invalid_field(
                "unread",
                "only a member has unread conversations",
            ));
        }
        Ok(ListFilter {
            status: self.status,
            assignee,
            contact: None,
            label: self.label,
            channel: self.channel,
            priority: self.priority,
            created_after: self.created_after,
            created_before: self.created_before,
            updated_after: self.updated_after,
            updated_before: self.updated_before,
            unread,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_filter() -> InboxFilters {
        let at = OffsetDateTime::UNIX_EPOCH;
        InboxFilters {
            status: Some(ConversationStatus::Open),
            assignee: Some("me".into()),
            label: Some(Uuid::nil()),
            channel: Some(Channel::Email),
            priority: Some(Priority::High),
            created_after: Some(at),
            created_before: Some(at + time::Duration::DAY),
            updated_after: Some(at),
            updated_before: Some(at + time::Duration::DAY),
            unread: Some(true),
        }
    }

    #[test]
    fn the_names_a_view_accepts_are_the_fields() {
        let json = serde_json::to_value(every_filter()).unwrap();
        let mut names: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut expected = FILTER_NAMES.to_vec();
        names.sort_unstable();
        expected.sort_unstable();
        assert_eq!(names, expected);
    }

    #[test]
    fn filters_left_out_are_left_out_of_the_json() {
        let json = serde_json::to_value(InboxFilters::default()).unwrap();
        assert_eq!(json, serde_json::json!({}));
        let back: InboxFilters =
            serde_json::from_value(serde_json::to_value(every_filter()).unwrap()).unwrap();
        assert_eq!(back, every_filter());
    }

    #[test]
    fn a_range_must_run_forwards_and_an_assignee_be_known() {
        assert!(every_filter().check().is_ok());
        let backwards = InboxFilters {
            created_after: every_filter().created_before,
            created_before: every_filter().created_after,
            ..every_filter()
        };
        assert!(backwards.check().is_err());
        let nobody = InboxFilters {
            assignee: Some("someone".into()),
            ..InboxFilters::default()
        };
        assert!(nobody.check().is_err());
    }
}
