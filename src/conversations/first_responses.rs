//! First responses of recent conversations: when the customer first wrote, and when an agent
//! first replied after that (a note is not a reply). The widget's "we usually reply in ..."
//! is measured from these (`widget::reply_time`); it counts each conversation's first
//! answer, not those after a reopening.

use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;

/// The most conversations one measurement reads.
pub const MEASURED: i64 = 200;

/// The newest [`MEASURED`] conversations a customer began (by chat or email) since `since`
/// that an agent answered: (the customer's first message, the first reply after it).
pub async fn recent(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    since: OffsetDateTime,
) -> sqlx::Result<Vec<(OffsetDateTime, OffsetDateTime)>> {
    // The count written out, not bound: a generic plan costs a bound `LIMIT` as a tenth of
    // the table and would sort it rather than walk `conversations_newest`.
    sqlx::query_as(schema.sql(&format!(
        "SELECT fi.created_at, fr.created_at
           FROM (SELECT c.id FROM {{schema}}.conversations c
                  WHERE c.created_at >= $1 AND c.channel <> 'manual'
                  ORDER BY c.created_at DESC, c.id DESC LIMIT {MEASURED}) c
          CROSS JOIN LATERAL (
                SELECT m.created_at FROM {{schema}}.messages m
                 WHERE m.conversation_id = c.id AND m.kind = 'incoming'
                 ORDER BY m.created_at, m.id LIMIT 1) fi
          CROSS JOIN LATERAL (
                SELECT m.created_at FROM {{schema}}.messages m
                 WHERE m.conversation_id = c.id AND m.kind = 'outgoing'
                   AND m.created_at >= fi.created_at
                 ORDER BY m.created_at, m.id LIMIT 1) fr"
    )))
    .bind(since)
    .fetch_all(conn)
    .await
}
