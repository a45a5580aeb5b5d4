//! `GET /api/conversations/counts`: how many conversations wait in each inbox tab, open and
//! pending, for the tabs' badges. One pass over the unresolved conversations (an index range
//! of `conversations_status_activity`), whatever the tab.

use serde::Serialize;
use sqlx::FromRow;
use utoipa::ToSchema;

use crate::error::Result;
use crate::error::responses::MemberErrors;
use crate::extract::AppJson;
use crate::tenancy::context::Tenant;

/// Open and pending conversations of one tab.
#[derive(Debug, Serialize, ToSchema, FromRow)]
pub struct TabCount {
    pub open: i64,
    pub pending: i64,
}

/// The counts of the Mine, Unassigned and All tabs.
#[derive(Debug, Serialize, ToSchema)]
pub struct InboxCounts {
    /// Assigned to the caller.
    pub mine: TabCount,
    pub unassigned: TabCount,
    pub all: TabCount,
}

/// Open and pending conversations in each inbox tab.
#[utoipa::path(
    get, path = "/api/conversations/counts", tag = "conversations",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The tabs' counts", body = InboxCounts),
        MemberErrors,
    )
)]
pub async fn counts(mut tenant: Tenant) -> Result<AppJson<InboxCounts>> {
    let user_id = tenant.actor.member_id().ok();
    let (conn, schema) = tenant.parts();
    #[derive(FromRow)]
    struct Row {
        mine_open: i64,
        mine_pending: i64,
        unassigned_open: i64,
        unassigned_pending: i64,
        all_open: i64,
        all_pending: i64,
    }
    let row: Row = sqlx::query_as(schema.sql(
        "SELECT count(*) FILTER (WHERE c.status = 'open' AND c.assignee_id = me.id) AS mine_open,
                count(*) FILTER (WHERE c.status = 'pending' AND c.assignee_id = me.id)
                    AS mine_pending,
                count(*) FILTER (WHERE c.status = 'open' AND c.assignee_id IS NULL)
                    AS unassigned_open,
                count(*) FILTER (WHERE c.status = 'pending' AND c.assignee_id IS NULL)
                    AS unassigned_pending,
                count(*) FILTER (WHERE c.status = 'open') AS all_open,
                count(*) FILTER (WHERE c.status = 'pending') AS all_pending
           FROM {schema}.conversations c
           LEFT JOIN {schema}.agent_profiles me ON me.user_id = $1
          WHERE c.status IN ('open', 'pending')",
    ))
    .bind(user_id)
    .fetch_one(conn)
    .await?;
    Ok(AppJson(InboxCounts {
        mine: TabCount {
            open: row.mine_open,
            pending: row.mine_pending,
        },
        unassigned: TabCount {
            open: row.unassigned_open,
            pending: row.unassigned_pending,
        },
        all: TabCount {
            open: row.all_open,
            pending: row.all_pending,
        },
    }))
}
