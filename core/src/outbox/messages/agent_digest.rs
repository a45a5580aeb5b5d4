//! The agent digest: one email listing what an agent was to be told (assigned, a new
//! conversation, the contact wrote again, a mention), batched over a short window.
//!
//! The API writes `agent_notices` rows in the transaction of the change and [`schedule`]s a
//! message for the agent unless one is already waiting to start. Delivery [`claim`]s the
//! agent's unsettled notices for its message (so no other message mails them), drops those no
//! longer true, and reads what the email lists; once the email left, [`mark_emailed`].
//!
//! Locking: [`claim`] takes the agent's profile row `FOR UPDATE`, and the API locks it
//! `FOR KEY SHARE` before it checks for a waiting message. So a notice committed while a
//! delivery is starting is either claimed by that delivery or finds it started and schedules
//! a message of its own (which finds nothing and is skipped, at worst).

use std::time::Duration;

use sqlx::{PgConnection, PgPool};
use time::OffsetDateTime;
use uuid::Uuid;

use super::workspace::{self, Workspace};
use crate::tenancy::TenantSchema;

/// How long notices gather before the email goes: the first notice's message is due then.
pub const WINDOW: Duration = Duration::from_secs(120);

/// Schedules one digest for each of `agent_ids` that has none waiting to start, due after
/// [`WINDOW`]; in the caller's transaction, after the notices are written.
pub async fn schedule(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    agent_ids: &[Uuid],
) -> sqlx::Result<u64> {
    if agent_ids.is_empty() {
        return Ok(0);
    }
    let scheduled = sqlx::query(
        "INSERT INTO public.outbox (id, kind, payload, available_at)
         SELECT gen_random_uuid(), 'agent_digest_email',
                jsonb_build_object('workspaceId', w.id, 'agentId', a.agent_id),
                now() + make_interval(secs => $3)
           FROM unnest($1::uuid[]) AS a(agent_id)
           JOIN public.workspaces w ON w.schema_name = $2
          WHERE NOT EXISTS (
                SELECT 1 FROM public.outbox o
                 WHERE o.kind = 'agent_digest_email' AND o.outcome IS NULL AND o.attempts = 0
                   AND o.payload->>'agentId' = a.agent_id::text
                   AND o.payload->>'workspaceId' = w.id::text)",
    )
    .bind(agent_ids)
    .bind(schema.name())
    .bind(WINDOW.as_secs_f64())
    .execute(conn)
    .await?;
    Ok(scheduled.rows_affected())
}

/// What a notice is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeKind {
    Assigned,
    NewConversation,
    ContactReply,
    Mention,
}

impl NoticeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Assigned => "assigned",
            Self::NewConversation => "new_conversation",
            Self::ContactReply => "contact_reply",
            Self::Mention => "mention",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        [
            Self::Assigned,
            Self::NewConversation,
            Self::ContactReply,
            Self::Mention,
        ]
        .into_iter()
        .find(|k| k.as_str() == value)
    }

    /// The profile's preference that turns this notice's email on or off
    /// (`notification_preferences`), and its value when absent.
    pub fn preference(self) -> (&'static str, bool) {
        match self {
            Self::Assigned => ("emailOnAssignment", true),
            Self::NewConversation => ("emailOnNewConversation", false),
            Self::ContactReply => ("emailOnContactReply", true),
            Self::Mention => ("emailOnMention", true),
        }
    }
}

/// One line of a digest.
#[derive(Debug, Clone)]
pub struct DigestItem {
    pub kind: NoticeKind,
    pub conversation_id: Uuid,
    pub number: i64,
    pub subject: Option<String>,
    /// The contact's name or address, if they have either.
    pub contact: Option<String>,
    /// The message the notice is about (or the conversation's latest one), cut to 200
    /// characters.
    pub preview: Option<String>,
    /// The agent who did it; `None` for the contact, an API key or the system.
    pub actor: Option<String>,
    pub at: OffsetDateTime,
}

/// A digest to send.
#[derive(Debug, Clone)]
pub struct Digest {
    pub email: String,
    pub display_name: String,
    pub workspace_name: String,
    pub schema: TenantSchema,
    pub items: Vec<DigestItem>,
}

/// Claims agent `agent_id`'s unsettled notices for message `outbox_id`, drops those no longer
/// true (the agent was deactivated or turned the email off, the conversation was reassigned
/// away, or the agent read it since), and returns what the email lists. `None` when nothing
/// is left to tell (or the workspace or agent is gone). A retry of the same message claims
/// again: it lists what it claimed before and was not mailed, and anything new.
pub async fn claim(
    db: &PgPool,
    workspace_id: Uuid,
    agent_id: Uuid,
    outbox_id: Uuid,
) -> sqlx::Result<Option<Digest>> {
    let mut tx = db.begin().await?;
    let Some(Workspace { name, schema, .. }) = workspace::active(&mut tx, workspace_id).await?
    else {
        return Ok(None);
    };
    let agent: Option<(String, String)> = sqlx::query_as(schema.sql(
        "SELECT email, display_name FROM {schema}.agent_profiles
          WHERE id = $1 FOR UPDATE",
    ))
    .bind(agent_id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((email, display_name)) = agent else {
        return Ok(None);
    };
    sqlx::query(schema.sql(
        "UPDATE {schema}.agent_notices SET outbox_id = $2
          WHERE agent_id = $1 AND outbox_id IS NULL
            AND emailed_at IS NULL AND dropped_at IS NULL",
    ))
    .bind(agent_id)
    .bind(outbox_id)
    .execute(&mut *tx)
    .await?;
    // A searched CASE (`CASE WHEN n.kind = ...`): Citus 13.2 sends the simple form
    // (`CASE n.kind WHEN ...`) to the worker node as a comparison of the kind with a boolean.
    sqlx::query(schema.sql(
        "UPDATE {schema}.agent_notices n SET dropped_at = now()
           FROM {schema}.conversations c, {schema}.agent_profiles p
          WHERE n.outbox_id = $1 AND n.emailed_at IS NULL AND n.dropped_at IS NULL
            AND c.id = n.conversation_id AND p.id = n.agent_id
            AND (p.status <> 'active'
                 OR NOT CASE
                     WHEN n.kind = 'assigned' THEN
                         coalesce((p.notification_preferences->>'emailOnAssignment')::boolean, true)
                     WHEN n.kind = 'new_conversation' THEN
                         coalesce((p.notification_preferences->>'emailOnNewConversation')::boolean,
                                  false)
                     WHEN n.kind = 'contact_reply' THEN
                         coalesce((p.notification_preferences->>'emailOnContactReply')::boolean,
                                  true)
                     ELSE coalesce((p.notification_preferences->>'emailOnMention')::boolean, true)
                 END
                 OR (n.kind IN ('assigned', 'contact_reply')
                     AND c.assignee_id IS DISTINCT FROM n.agent_id)
                 OR (n.kind IN ('new_conversation', 'contact_reply', 'mention')
                     AND EXISTS (SELECT 1 FROM {schema}.conversation_reads r
                                  WHERE r.conversation_id = n.conversation_id
                                    AND r.agent_id = n.agent_id
                                    AND r.read_at >= n.created_at)))",
    ))
    .bind(outbox_id)
    .execute(&mut *tx)
    .await?;
    type Row = (
        String,
        Uuid,
        i64,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        OffsetDateTime,
    );
    let rows: Vec<Row> = sqlx::query_as(schema.sql(
        "SELECT n.kind, c.id, c.number, c.subject,
                coalesce(ct.name, ct.email, ct.claimed_email),
                left(coalesce(m.body,
                              (SELECT l.body FROM {schema}.messages l
                                WHERE l.conversation_id = c.id AND l.kind <> 'note'
                                ORDER BY l.created_at DESC, l.id DESC LIMIT 1)), 200),
                actor.display_name, n.created_at
           FROM {schema}.agent_notices n
           JOIN {schema}.conversations c ON c.id = n.conversation_id
           JOIN {schema}.contacts ct ON ct.id = c.contact_id
           LEFT JOIN {schema}.messages m ON m.id = n.message_id
           LEFT JOIN {schema}.agent_profiles actor ON actor.id = n.actor_agent_id
          WHERE n.outbox_id = $1 AND n.emailed_at IS NULL AND n.dropped_at IS NULL
          ORDER BY n.created_at, n.id",
    ))
    .bind(outbox_id)
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    let items: Vec<DigestItem> = rows
        .into_iter()
        .filter_map(
            |(kind, conversation_id, number, subject, contact, preview, actor, at)| {
                Some(DigestItem {
                    kind: NoticeKind::parse(&kind)?,
                    conversation_id,
                    number,
                    subject,
                    contact,
                    preview,
                    actor,
                    at,
                })
            },
        )
        .collect();
    Ok((!items.is_empty()).then_some(Digest {
        email,
        display_name,
        workspace_name: name,
        schema,
        items,
    }))
}

/// Marks the notices message `outbox_id` listed as emailed.
pub async fn mark_emailed(
    db: &PgPool,
    schema: &TenantSchema,
    outbox_id: Uuid,
) -> sqlx::Result<u64> {
    let marked = sqlx::query(schema.sql(
        "UPDATE {schema}.agent_notices SET emailed_at = now()
          WHERE outbox_id = $1 AND emailed_at IS NULL AND dropped_at IS NULL",
    ))
    .bind(outbox_id)
    .execute(db)
    .await?;
    Ok(marked.rows_affected())
}
