//! An agent's reply on an email conversation, as the worker sends it: the email details the
//! API recorded with the reply (`email_messages`: Message-ID, thread headers, To, Cc,
//! subject), its body and files, and who wrote it. The worker records the delivery back on
//! the same row, which the message resource shows as `delivery`.

use serde::Deserialize;
use sqlx::PgPool;
use sqlx::types::Json;
use uuid::Uuid;

use super::workspace;
use crate::tenancy::TenantSchema;

#[derive(Debug, Clone, Deserialize)]
pub struct Party {
    pub address: String,
    pub name: Option<String>,
}

/// A file of the reply: its object is `storage::attachment_path(workspace, id, Original)`.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct File {
    pub id: Uuid,
    pub name: String,
    pub content_type: String,
}

#[derive(Debug, Clone)]
pub struct ConversationEmail {
    pub schema: TenantSchema,
    pub workspace_name: String,
    pub agent_name: String,
    /// Without brackets.
    pub message_id: String,
    pub in_reply_to: Option<String>,
    pub references: Vec<String>,
    /// The support address (or the forwarding address): where answers go, with the token.
    pub reply_address: String,
    pub to: Vec<Party>,
    pub cc: Vec<Party>,
    pub subject: String,
    pub body: String,
    pub files: Vec<File>,
}

#[derive(sqlx::FromRow)]
struct Row {
    rfc_message_id: String,
    in_reply_to: Option<String>,
    refs: Vec<String>,
    from_address: String,
    to_addresses: Json<Vec<Party>>,
    cc_addresses: Json<Vec<Party>>,
    subject: String,
    body: String,
    agent_name: Option<String>,
}

/// The reply `message_id` of workspace `workspace_id`, unless it was sent already or its
/// workspace is gone.
pub async fn pending(
    db: &PgPool,
    workspace_id: Uuid,
    message_id: Uuid,
) -> sqlx::Result<Option<ConversationEmail>> {
    let mut conn = db.acquire().await?;
    let Some(ws) = workspace::active(&mut conn, workspace_id).await? else {
        return Ok(None);
    };
    let row: Option<Row> = sqlx::query_as(ws.schema.sql(
        "SELECT e.rfc_message_id, e.in_reply_to, e.refs, e.from_address, e.to_addresses,
                e.cc_addresses, e.subject, m.body, a.display_name AS agent_name
           FROM {schema}.email_messages e
           JOIN {schema}.messages m ON m.id = e.message_id
           LEFT JOIN {schema}.agent_profiles a ON a.id = m.author_agent_id
          WHERE e.message_id = $1 AND e.delivery_status <> 'sent'",
    ))
    .bind(message_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    let files: Vec<File> = sqlx::query_as(ws.schema.sql(
        "SELECT id, name, content_type FROM {schema}.attachments
          WHERE message_id = $1 ORDER BY created_at, id",
    ))
    .bind(message_id)
    .fetch_all(&mut *conn)
    .await?;
    Ok(Some(ConversationEmail {
        schema: ws.schema,
        workspace_name: ws.name,
        agent_name: row.agent_name.unwrap_or_else(|| "Support".to_owned()),
        message_id: row.rfc_message_id,
        in_reply_to: row.in_reply_to,
        references: row.refs,
        reply_address: row.from_address,
        to: row.to_addresses.0,
        cc: row.cc_addresses.0,
        subject: row.subject,
        body: row.body,
        files,
    }))
}

/// How a reply's delivery stands after an attempt.
#[derive(Debug, Clone, Copy)]
pub enum Delivered<'a> {
    Sent,
    /// Not yet: the last attempt failed with this, another follows.
    Retrying(&'a str),
    /// Given up: the server refused it for good, or every attempt failed.
    Failed(&'a str),
}

/// Records how the reply's delivery went. Nothing when its workspace is gone.
pub async fn record_delivery(
    db: &PgPool,
    workspace_id: Uuid,
    message_id: Uuid,
    delivered: Delivered<'_>,
) -> sqlx::Result<()> {
    let mut conn = db.acquire().await?;
    let Some(ws) = workspace::active(&mut conn, workspace_id).await? else {
        return Ok(());
    };
    let (status, error) = match delivered {
        Delivered::Sent => ("sent", None),
        Delivered::Retrying(e) => ("pending", Some(e)),
        Delivered::Failed(e) => ("failed", Some(e)),
    };
    sqlx::query(ws.schema.sql(
        "UPDATE {schema}.email_messages SET delivery_status = $2, delivery_error = $3
          WHERE message_id = $1 AND delivery_status <> 'sent'",
    ))
    .bind(message_id)
    .bind(status)
    .bind(error)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// How an email about a conversation that is not an email one (a chat's unseen replies)
/// joins the conversation's thread: its Message-ID, and where answers go.
#[derive(Debug, Clone)]
pub struct Thread {
    /// Without brackets.
    pub message_id: String,
    /// The support address (else the forwarding address) with the email's token.
    pub reply_to: String,
}

/// Makes email `email_id` (an outbox message) part of conversation `conversation_id`'s
/// thread: its Message-ID is recorded as ours, so an answer to it lands in the conversation.
pub async fn join_thread(
    db: &PgPool,
    workspace_id: Uuid,
    schema: &TenantSchema,
    conversation_id: Uuid,
    email_id: Uuid,
    domain: &str,
) -> sqlx::Result<Thread> {
    let token = email_id.simple().to_string();
    let message_id = format!("{token}@{domain}");
    let mut tx = db.begin().await?;
    // The workspace's own address, else its forwarding address (control plane and tenant
    // read apart: a tenant statement never reads `public`).
    let own: Option<String> =
        sqlx::query_scalar(schema.sql("SELECT address FROM {schema}.email_settings"))
            .fetch_optional(&mut *tx)
            .await?
            .flatten();
    let address = match own {
        Some(address) => address,
        None => sqlx::query_scalar(
            "SELECT slug || '.' || inbound_tag || '@' || $2 FROM public.workspaces WHERE id = $1",
        )
        .bind(workspace_id)
        .bind(domain)
        .fetch_one(&mut *tx)
        .await?,
    };
    sqlx::query(schema.sql(
        "INSERT INTO {schema}.email_thread_ids (rfc_message_id, conversation_id, ours)
         VALUES ($1, $2, true) ON CONFLICT (rfc_message_id) DO NOTHING",
    ))
    .bind(&message_id)
    .bind(conversation_id)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    let reply_to = with_reply_token(&address, &token);
    Ok(Thread {
        message_id,
        reply_to,
    })
}

/// `address` with `token` after a `+` in its local part (any token it had replaced): where
/// answers to one of our emails go, so they find its thread.
pub fn with_reply_token(address: &str, token: &str) -> String {
    match address.rsplit_once('@') {
        Some((local, domain)) => {
            let local = local.split('+').next().unwrap_or(local);
            format!("{local}+{token}@{domain}")
        }
        None => address.to_owned(),
    }
}
