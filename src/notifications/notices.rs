//! Writing agents' notices, in the transaction of the change, and scheduling their digest.
//!
//! Who gets one: active agents whose preference for the kind is on (absent keys take their
//! defaults), never the agent who did it. The recipients' profile rows are locked
//! `FOR KEY SHARE` first, so a digest that is starting either waits for these notices or is
//! seen as started, and a new one is scheduled (`outbox::messages::agent_digest`).

use sqlx::PgConnection;
use supportdesk_core::outbox::messages::agent_digest::{self, NoticeKind};
use supportdesk_core::tenancy::TenantSchema;
use uuid::Uuid;

/// Who may get the notice, before preferences and the actor are taken out.
#[derive(Debug, Clone, Copy)]
pub enum Candidates<'a> {
    /// Every active agent.
    Everyone,
    /// These agents.
    Agents(&'a [Uuid]),
    /// The conversation's assignee, if any.
    Assignee,
}

/// One change to tell agents about.
#[derive(Debug, Clone, Copy)]
pub struct Notice {
    pub kind: NoticeKind,
    pub conversation_id: Uuid,
    /// The message it is about, for the preview.
    pub message_id: Option<Uuid>,
    /// The member who did it (never notified); `None` for a contact or an API key.
    pub by_user: Option<Uuid>,
}

/// Writes `notice` for the `candidates` who want it and schedules their digests; how many
/// agents were notified.
pub async fn notify(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    notice: Notice,
    candidates: Candidates<'_>,
) -> sqlx::Result<usize> {
    let (only, assignee_only): (Option<&[Uuid]>, bool) = match candidates {
        Candidates::Everyone => (None, false),
        Candidates::Agents([]) => return Ok(0),
        Candidates::Agents(ids) => (Some(ids), false),
        Candidates::Assignee => (None, true),
    };
    let (preference, default) = notice.kind.preference();
    let recipients: Vec<Uuid> = sqlx::query_scalar(schema.sql(
        "SELECT p.id FROM {schema}.agent_profiles p
          WHERE p.status = 'active'
            AND ($1::uuid[] IS NULL OR p.id = ANY($1))
            AND (NOT $2 OR p.id = (SELECT c.assignee_id FROM {schema}.conversations c
                                    WHERE c.id = $3))
            AND p.user_id IS DISTINCT FROM $4
            AND coalesce((p.notification_preferences->>$5)::boolean, $6)
          ORDER BY p.id
            FOR KEY SHARE OF p",
    ))
    .bind(only)
    .bind(assignee_only)
    .bind(notice.conversation_id)
    .bind(notice.by_user)
    .bind(preference)
    .bind(default)
    .fetch_all(&mut *conn)
    .await?;
    if recipients.is_empty() {
        return Ok(0);
    }
    // Who did it, as an agent of the workspace; read apart from the insert (an `INSERT ...
    // SELECT` reading the tenant's tables is a plan Citus 13.2 deparses wrongly for a table
    // with a `now()` default).
    let actor: Option<Uuid> = match notice.by_user {
        Some(user) => {
            sqlx::query_scalar(
                schema.sql("SELECT id FROM {schema}.agent_profiles WHERE user_id = $1"),
            )
            .bind(user)
            .fetch_optional(&mut *conn)
            .await?
        }
        None => None,
    };
    sqlx::query(schema.sql(
        "INSERT INTO {schema}.agent_notices
                (agent_id, kind, conversation_id, message_id, actor_agent_id)
         SELECT r.id, $2, $3, $4, $5 FROM unnest($1::uuid[]) AS r(id)",
    ))
    .bind(&recipients)
    .bind(notice.kind.as_str())
    .bind(notice.conversation_id)
    .bind(notice.message_id)
    .bind(actor)
    .execute(&mut *conn)
    .await?;
    agent_digest::schedule(conn, schema, &recipients).await?;
    Ok(recipients.len())
}
