//! Which conversation a received email continues, in this order, never by its subject alone:
//!
//! 1. `In-Reply-To`: a Message-ID we received or sent in a conversation;
//! 2. `References`, newest first (a client that dropped `In-Reply-To` still sends them);
//! 3. the reply token in an address it was sent to (`support+<token>@...`), when the sender
//!    is the conversation's contact;
//! 4. the `[#number]` reference in its subject, when the sender is the conversation's contact.
//!
//! A match by a customer-controlled mark (3, 4) must come from the conversation's own contact,
//! so nobody can write into another customer's conversation by copying its subject.

use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use uuid::Uuid;

use super::address::{self, our_message_id};
use super::parse::InboundMail;

/// How a thread was found, for the log and the tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoundBy {
    InReplyTo,
    References,
    ReplyToken,
    SubjectReference,
}

/// The conversation `mail` continues, if any, and how it was found. `recipients` are the
/// addresses it was delivered to (the envelope's, then its headers'); `contact_id` is the
/// sender's contact.
pub async fn find(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    mail: &InboundMail,
    recipients: &[String],
    contact_id: Uuid,
    domain: &str,
) -> sqlx::Result<Option<(Uuid, FoundBy)>> {
    if let Some(id) = by_message_ids(conn, schema, &mail.in_reply_to).await? {
        return Ok(Some((id, FoundBy::InReplyTo)));
    }
    let newest_first: Vec<String> = mail.references.iter().rev().cloned().collect();
    if let Some(id) = by_message_ids(conn, schema, &newest_first).await? {
        return Ok(Some((id, FoundBy::References)));
    }
    for token in recipients.iter().filter_map(|r| address::reply_token(r)) {
        let ids = [our_message_id(token, domain)];
        if let Some(id) = by_message_ids(conn, schema, &ids).await?
            && of_contact(conn, schema, id, contact_id).await?
        {
            return Ok(Some((id, FoundBy::ReplyToken)));
        }
    }
    if let Some(number) = address::subject_reference(&mail.subject) {
        let id: Option<Uuid> = sqlx::query_scalar(
            schema
                .sql("SELECT id FROM {schema}.conversations WHERE number = $1 AND contact_id = $2"),
        )
        .bind(number)
        .bind(contact_id)
        .fetch_optional(&mut *conn)
        .await?;
        if let Some(id) = id {
            return Ok(Some((id, FoundBy::SubjectReference)));
        }
    }
    Ok(None)
}

/// The conversation of the first of `ids` (in their order) that belongs to one.
async fn by_message_ids(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    ids: &[String],
) -> sqlx::Result<Option<Uuid>> {
    if ids.is_empty() {
        return Ok(None);
    }
    sqlx::query_scalar(schema.sql(
        "SELECT t.conversation_id
           FROM unnest($1::text[]) WITH ORDINALITY AS i(id, n)
           JOIN {schema}.email_thread_ids t ON t.rfc_message_id = i.id
          ORDER BY i.n LIMIT 1",
    ))
    .bind(ids)
    .fetch_optional(conn)
    .await
}

async fn of_contact(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    conversation_id: Uuid,
    contact_id: Uuid,
) -> sqlx::Result<bool> {
    sqlx::query_scalar(schema.sql(
        "SELECT EXISTS (SELECT 1 FROM {schema}.conversations WHERE id = $1 AND contact_id = $2)",
    ))
    .bind(conversation_id)
    .bind(contact_id)
    .fetch_one(conn)
    .await
}

/// Whether a Message-ID is known in the workspace already (the same mail again), and whether
/// it is one of ours (our own mail come back: a loop).
pub async fn known(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    message_id: &str,
) -> sqlx::Result<Option<bool>> {
    sqlx::query_scalar(
        schema.sql("SELECT ours FROM {schema}.email_thread_ids WHERE rfc_message_id = $1"),
    )
    .bind(message_id)
    .fetch_optional(conn)
    .await
}

/// Records `message_id` as part of conversation `conversation_id`; false when it was known
/// already (a concurrent delivery of the same mail won).
pub async fn remember(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    message_id: &str,
    conversation_id: Uuid,
    ours: bool,
) -> sqlx::Result<bool> {
    let inserted = sqlx::query(schema.sql(
        "INSERT INTO {schema}.email_thread_ids (rfc_message_id, conversation_id, ours)
         VALUES ($1, $2, $3) ON CONFLICT (rfc_message_id) DO NOTHING",
    ))
    .bind(message_id)
    .bind(conversation_id)
    .bind(ours)
    .execute(conn)
    .await?;
    Ok(inserted.rows_affected() == 1)
}
