//! `GET /api/conversations/{id}/activity`: the conversation's activity lines ("Olivia assigned
//! Tom", "resolved", "ticket #12 created") as the event log recorded them, for the dashboard
//! to weave between the messages. They are the log's own events, so they name their actor and
//! carry the resource as it became; like the log, they go back as far as its retention.

use serde::Serialize;
use utoipa::ToSchema;

use crate::conversations::record::{self, Conversation};
use crate::error::responses::MemberErrors;
use crate::error::{Error, Result};
use crate::events::log::{self, Stored};
use crate::extract::{AppJson, PathId};
use crate::tenancy::context::Tenant;

/// The most activity lines one answer holds: the newest ones.
const ACTIVITY_MAX: i64 = 500;

#[derive(Serialize, ToSchema)]
pub struct ConversationActivity {
    /// `conversation.created`, `conversation.updated` and `ticket.created` events of this
    /// conversation, oldest first (the newest 500 at most).
    pub events: Vec<Stored>,
}

/// The conversation's activity: its creation, changes of status, assignee and priority, and
/// tickets made from it.
#[utoipa::path(
    get, path = "/api/conversations/{id}/activity", tag = "conversations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Conversation id")),
    responses(
        (status = 200, description = "The activity, oldest first", body = ConversationActivity),
        MemberErrors,
    )
)]
pub async fn activity(
    PathId { id, .. }: PathId<Conversation>,
    mut tenant: Tenant,
) -> Result<AppJson<ConversationActivity>> {
    let (conn, schema) = tenant.parts();
    if !record::exists(&mut *conn, schema, id).await? {
        return Err(Error::NotFound("conversation"));
    }
    let events = log::activity_of(conn, schema, id, ACTIVITY_MAX).await?;
    Ok(AppJson(ConversationActivity { events }))
}
