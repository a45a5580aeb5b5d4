//! Replies emailed to a widget visitor who left an address and is gone.
//!
//! An agent's reply in a chat conversation whose contact has an address (established, or the
//! one the visitor typed in the widget) [`schedule`]s a message in the reply's transaction,
//! due [`SHOW_IN_CHAT_FIRST`] later: a visitor still in the chat sees the reply there and the
//! widget reports it read, and the email is skipped. Replies while a message waits are carried
//! by it; after an email went, the next is due [`AT_MOST_EVERY`] after it, so a lively
//! conversation makes one email per ten minutes, not one per reply.
//!
//! Delivery [`claim`]s the unseen replies for its message under the conversation's row lock
//! (a reply's statement updates that row, so a reply is either seen by the claim or finds the
//! message started and schedules the next): the outgoing messages after both what the visitor
//! reported seeing and what earlier emails carried. A retry sends the same claimed range.

use std::time::Duration;

use sqlx::{PgConnection, PgPool};
use time::OffsetDateTime;
use uuid::Uuid;

use super::workspace::{self, Workspace};
use crate::tenancy::TenantSchema;

/// How long a reply waits for the visitor to see it in the chat before it is emailed.
pub const SHOW_IN_CHAT_FIRST: Duration = Duration::from_secs(120);
/// The least time between two emails of one conversation.
pub const AT_MOST_EVERY: Duration = Duration::from_secs(600);
/// How many of the conversation's latest messages (replies and the visitor's, never notes)
/// an email shows at most.
pub const SHOWN: i64 = 20;

/// Schedules the email of conversation `conversation_id`'s unseen replies, unless one is
/// waiting to start or the conversation is not a widget chat with an address to write to.
/// In the reply's transaction, after the reply.
pub async fn schedule(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    conversation_id: Uuid,
) -> sqlx::Result<u64> {
    // When the email is due, if the conversation is a chat with an address to write to: read
    // from the tenant's tables, then queued in the control plane's outbox (a tenant statement
    // never reads or writes `public`).
    let due: Option<OffsetDateTime> = sqlx::query_scalar(schema.sql(
        "SELECT greatest(now() + make_interval(secs => $2),
                         (SELECT max(e.sent_at) FROM {schema}.visitor_reply_emails e
                           WHERE e.conversation_id = c.id) + make_interval(secs => $3))
           FROM {schema}.conversations c
           JOIN {schema}.contacts ct ON ct.id = c.contact_id
          WHERE c.id = $1 AND c.channel = 'chat'
            AND coalesce(ct.email, ct.claimed_email) IS NOT NULL",
    ))
    .bind(conversation_id)
    .bind(SHOW_IN_CHAT_FIRST.as_secs_f64())
    .bind(AT_MOST_EVERY.as_secs_f64())
    .fetch_optional(&mut *conn)
    .await?;
    let Some(due) = due else {
        return Ok(0);
    };
    let scheduled = sqlx::query(
        "INSERT INTO public.outbox (id, kind, payload, available_at)
         SELECT gen_random_uuid(), 'visitor_reply_email',
                jsonb_build_object('workspaceId', w.id, 'conversationId', $1::uuid), $3
           FROM public.workspaces w
          WHERE w.schema_name = $2
            AND NOT EXISTS (
                SELECT 1 FROM public.outbox o
                 WHERE o.kind = 'visitor_reply_email' AND o.outcome IS NULL AND o.attempts = 0
                   AND o.payload->>'conversationId' = ($1::uuid)::text
                   AND o.payload->>'workspaceId' = w.id::text)",
    )
    .bind(conversation_id)
    .bind(schema.name())
    .bind(due)
    .execute(conn)
    .await?;
    Ok(scheduled.rows_affected())
}

/// A message as the visitor's email shows it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ShownMessage {
    /// From the team (a reply) rather than the visitor.
    pub from_team: bool,
    /// The replying agent's display name.
    pub author: Option<String>,
    pub body: String,
    pub created_at: OffsetDateTime,
    /// A reply the visitor has not seen: what this email is for.
    pub unseen: bool,
}

/// The email to send.
#[derive(Debug, Clone)]
pub struct VisitorReply {
    pub email: String,
    pub visitor_name: Option<String>,
    pub workspace_name: String,
    /// The workspace's branding (`settings.branding`): its shown name and colour, if set.
    pub brand_name: Option<String>,
    pub brand_color: Option<String>,
    /// The page the visitor was last on, for the link back to the chat: only when it is on
    /// one of the origins allowed to embed the widget (the visitor's browser reports it, so
    /// anything else could send our email's reader anywhere).
    pub page_url: Option<String>,
    pub number: i64,
    pub schema: TenantSchema,
    pub messages: Vec<ShownMessage>,
}

/// Claims conversation `conversation_id`'s unseen replies for message `outbox_id` and reads
/// the email; `None` when there is nothing to send (the visitor saw every reply, an earlier
/// email carried them, there is no address any more, the workspace is gone).
pub async fn claim(
    db: &PgPool,
    workspace_id: Uuid,
    conversation_id: Uuid,
    outbox_id: Uuid,
) -> sqlx::Result<Option<VisitorReply>> {
    let mut tx = db.begin().await?;
    let Some(Workspace { name, schema }) = workspace::active(&mut tx, workspace_id).await? else {
        return Ok(None);
    };
    type Conversation = (
        i64,
        Option<OffsetDateTime>,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
    );
    // The origins allowed to embed the widget, from the control plane, for the tenant's
    // statement to check the visitor's page against.
    let origins: Vec<String> = sqlx::query_scalar(
        "SELECT coalesce(array_agg(o), '{}') FROM public.widget_sites ws, unnest(ws.allowed_origins) o
          WHERE ws.workspace_id = $1",
    )
    .bind(workspace_id)
    .fetch_one(&mut *tx)
    .await?;
    let conversation: Option<Conversation> = sqlx::query_as(schema.sql(
        "SELECT c.number, c.visitor_read_at, coalesce(ct.email, ct.claimed_email), ct.name,
                CASE WHEN EXISTS (
                         SELECT 1 FROM unnest($2::text[]) o
                          WHERE (ct.last_page_url = o OR starts_with(ct.last_page_url, o || '/')
                                 OR starts_with(ct.last_page_url, o || '?')
                                 OR starts_with(ct.last_page_url, o || '#')))
                     THEN ct.last_page_url END,
                s.branding->>'name', s.branding->>'color'
           FROM {schema}.conversations c
           JOIN {schema}.contacts ct ON ct.id = c.contact_id
           LEFT JOIN {schema}.settings s ON true
          WHERE c.id = $1
            FOR UPDATE OF c",
    ))
    .bind(conversation_id)
    .bind(origins)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((number, read_at, Some(email), visitor_name, page_url, brand_name, brand_color)) =
        conversation
    else {
        return Ok(None);
    };
    let claimed: Option<(Option<OffsetDateTime>, OffsetDateTime)> = sqlx::query_as(
        schema.sql("SELECT since, through FROM {schema}.visitor_reply_emails WHERE outbox_id = $1"),
    )
    .bind(outbox_id)
    .fetch_optional(&mut *tx)
    .await?;
    let (since, through) = match claimed {
        Some((since, through)) => (since, through),
        None => {
            let range: (Option<OffsetDateTime>, Option<OffsetDateTime>) =
                sqlx::query_as(schema.sql(
                    "WITH s AS (
                         SELECT greatest($2::timestamptz,
                                         (SELECT max(through) FROM {schema}.visitor_reply_emails
                                           WHERE conversation_id = $1)) AS since)
                     SELECT s.since,
                            (SELECT max(m.created_at) FROM {schema}.messages m
                              WHERE m.conversation_id = $1 AND m.kind = 'outgoing'
                                AND (s.since IS NULL OR m.created_at > s.since))
                       FROM s",
                ))
                .bind(conversation_id)
                .bind(read_at)
                .fetch_one(&mut *tx)
                .await?;
            let (since, Some(through)) = range else {
                return Ok(None);
            };
            sqlx::query(schema.sql(
                "INSERT INTO {schema}.visitor_reply_emails (outbox_id, conversation_id, since, through)
                 VALUES ($1, $2, $3, $4)",
            ))
            .bind(outbox_id)
            .bind(conversation_id)
            .bind(since)
            .bind(through)
            .execute(&mut *tx)
            .await?;
            (since, through)
        }
    };
    // Seen in the chat since the claim (a retry after a failed send): nothing to email.
    if read_at.is_some_and(|read| read >= through) {
        sqlx::query(schema.sql("DELETE FROM {schema}.visitor_reply_emails WHERE outbox_id = $1"))
            .bind(outbox_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        return Ok(None);
    }
    let mut messages: Vec<ShownMessage> = sqlx::query_as(schema.sql(
        "SELECT m.kind = 'outgoing' AS from_team, a.display_name AS author, m.body, m.created_at,
                (m.kind = 'outgoing' AND ($2::timestamptz IS NULL OR m.created_at > $2))
                    AS unseen
           FROM {schema}.messages m
           LEFT JOIN {schema}.agent_profiles a ON a.id = m.author_agent_id
          WHERE m.conversation_id = $1 AND m.kind IN ('incoming', 'outgoing')
            AND m.created_at <= $3
          ORDER BY m.created_at DESC, m.id DESC
          LIMIT $4",
    ))
    .bind(conversation_id)
    .bind(since)
    .bind(through)
    .bind(SHOWN)
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    messages.reverse();
    Ok(Some(VisitorReply {
        email,
        visitor_name,
        workspace_name: name,
        brand_name,
        brand_color,
        page_url,
        number,
        schema,
        messages,
    }))
}

/// Records that message `outbox_id`'s email left: the next waits [`AT_MOST_EVERY`] after it.
pub async fn mark_sent(db: &PgPool, schema: &TenantSchema, outbox_id: Uuid) -> sqlx::Result<()> {
    sqlx::query(schema.sql(
        "UPDATE {schema}.visitor_reply_emails SET sent_at = now()
          WHERE outbox_id = $1 AND sent_at IS NULL",
    ))
    .bind(outbox_id)
    .execute(db)
    .await?;
    Ok(())
}
