//! Receiving one email: the forwarding address it was delivered to picks the workspace; then
//! it is dropped when it is noise (an automatic reply, mass mail, our own mail come back), a
//! bounce marks the reply it returns as undelivered, and a message seen before is dropped
//! again. Anything else lands in a conversation through the same intake as the widget's: the
//! thread it continues (`threading`), or a new conversation for its sender's contact, at most
//! [`NEW_THREADS_PER_HOUR`] an hour from one sender.
//!
//! The raw message is kept in the object store whatever its MIME looks like; its files are
//! stored as a visitor's uploads are (programs refused, images cleaned). Both are written
//! before the transaction and deleted again when it does not commit, so a refusal or a failure
//! leaves nothing behind; the transaction records the contact, the message, its email details,
//! its Message-ID (which makes a concurrent second delivery a duplicate) and their events.

use axum::body::Bytes;
use axum::http::StatusCode;
use object_store::ObjectStoreExt;
use serde::Serialize;
use supportdesk_core::storage::mail_path;
use supportdesk_core::tenancy::TenantSchema;
use utoipa::ToSchema;
use uuid::Uuid;

use super::address::{self, is_ours};
use super::details::{EmailDetails, EmailParty, SenderChecks};
use super::parse::{self, InboundMail, Noise};
use super::quotes;
use super::threading::{self, FoundBy};
use crate::attachments::AGENT_MAX_BYTES;
use crate::attachments::record::{self as attachments, Uploader};
use crate::attachments::upload::{self, Carried, store_failed};
use crate::conversations::intake::{self, Destination, LockedContact, Target};
use crate::conversations::record::Channel;
use crate::email_address::EmailAddress;
use crate::error::{Error, Result};
use crate::events::catalogue::DomainEvent;
use crate::events::log::{self, By};
use crate::inbox::contacts::{self, NewContact};
use crate::state::AppState;

/// The largest message taken: a 25 MiB file, base64-encoded, and its headers.
pub const MAX_RAW_BYTES: usize = 40 * 1024 * 1024;
/// New conversations one sender may open by email in an hour.
pub const NEW_THREADS_PER_HOUR: i64 = 20;

/// What became of a received email.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", tag = "outcome")]
pub enum Receipt {
    /// It is in a conversation: a new one (`opened`), or the thread it continues.
    #[serde(rename = "added", rename_all = "camelCase")]
    Added {
        conversation_id: Uuid,
        message_id: Uuid,
        opened: bool,
    },
    /// The workspace has this Message-ID already.
    #[serde(rename = "duplicate")]
    Duplicate,
    /// Not answered and not shown: automatic mail, a loop, or a sender over the limit.
    #[serde(rename = "ignored")]
    Ignored { reason: String },
    /// A delivery failure report: the replies it returns are marked undelivered.
    #[serde(rename = "bounce")]
    Bounce { undelivered: u64 },
}

/// The workspace a forwarding address names.
#[derive(Debug, Clone)]
pub struct Recipient {
    pub workspace_id: Uuid,
    pub schema: TenantSchema,
}

fn unprocessable(code: &'static str, detail: &str) -> Error {
    Error::Body {
        status: StatusCode::UNPROCESSABLE_ENTITY,
        code,
        detail: detail.to_owned(),
    }
}

/// The workspace of the first of `addresses` that is a forwarding address at `domain`.
async fn recipient_of(
    state: &AppState,
    addresses: &[String],
    domain: &str,
) -> Result<Option<Recipient>> {
    for (slug, tag) in addresses
        .iter()
        .filter_map(|a| address::parse_inbound(a, domain))
    {
        let found: Option<(Uuid, String)> = sqlx::query_as(
            "SELECT id, schema_name FROM public.workspaces
              WHERE slug = $1 AND inbound_tag = $2 AND status = 'active'",
        )
        .bind(&slug)
        .bind(&tag)
        .fetch_optional(&state.db)
        .await?;
        if let Some((workspace_id, schema)) = found {
            let schema =
                TenantSchema::parse(&schema).map_err(|e| Error::Internal(anyhow::anyhow!(e)))?;
            return Ok(Some(Recipient {
                workspace_id,
                schema,
            }));
        }
    }
    Ok(None)
}

/// Receives `raw`, delivered to `envelope_recipient` (the MTA's, when it tells), for the
/// workspace that address (or one the message itself was sent to) belongs to.
pub async fn receive(
    state: &AppState,
    envelope_recipient: Option<&str>,
    raw: Bytes,
) -> Result<Receipt> {
    let (mail, raw) = parsed(raw).await?;
    let recipients = recipients(envelope_recipient, &mail);
    let domain = &state.settings.inbound.domain;
    let recipient = recipient_of(state, &recipients, domain)
        .await?
        .ok_or(Error::NotFound("inbound address"))?;
    take(state, &recipient, &mail, raw, &recipients).await
}

/// Receives `raw` for the workspace `recipient`, known already (its IMAP mailbox held it).
pub async fn receive_for(state: &AppState, recipient: &Recipient, raw: Bytes) -> Result<Receipt> {
    let (mail, raw) = parsed(raw).await?;
    let recipients = recipients(None, &mail);
    take(state, recipient, &mail, raw, &recipients).await
}

async fn parsed(raw: Bytes) -> Result<(InboundMail, Bytes)> {
    if raw.len() > MAX_RAW_BYTES {
        return Err(Error::Body {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            code: "email_too_large",
            detail: format!(
                "messages may be at most {} MiB",
                MAX_RAW_BYTES / (1024 * 1024)
            ),
        });
    }
    tokio::task::spawn_blocking(move || (parse::parse(&raw), raw))
        .await
        .map_err(|e| Error::Internal(e.into()))
}

/// The addresses a message was delivered to: the envelope's, then its headers'.
fn recipients(envelope_recipient: Option<&str>, mail: &InboundMail) -> Vec<String> {
    envelope_recipient
        .map(str::to_lowercase)
        .into_iter()
        .chain(mail.delivered_to.iter().cloned())
        .chain(mail.to.iter().chain(&mail.cc).map(|m| m.address.clone()))
        .collect()
}

/// Everything after the workspace is known.
async fn take(
    state: &AppState,
    recipient: &Recipient,
    mail: &InboundMail,
    raw: Bytes,
    recipients: &[String],
) -> Result<Receipt> {
    let domain = &state.settings.inbound.domain;
    let recipient = recipient.clone();
    if mail.noise == Some(Noise::Bounce) {
        return bounce(state, &recipient, mail).await;
    }
    if let Some(noise) = &mail.noise {
        return Ok(ignored(match noise {
            Noise::AutoSubmitted(v) => format!("automatic mail (Auto-Submitted: {v})"),
            Noise::Bulk(v) => format!("mass mail (Precedence or list: {v})"),
            Noise::Bounce => "a delivery report".to_owned(),
        }));
    }
    if is_ours(&mail.message_id, domain) {
        return Ok(ignored("our own message came back".to_owned()));
    }
    let from = mail
        .from
        .clone()
        .ok_or_else(|| unprocessable("email_without_sender", "the message has no From address"))?;
    let sender = EmailAddress::parse(&from.address)
        .map_err(|_| unprocessable("email_without_sender", "the From address is not usable"))?;
    if from.address.ends_with(&format!("@{domain}")) {
        return Ok(ignored("sent from our own address (a loop)".to_owned()));
    }
    {
        let mut conn = state.reads.get(&recipient.schema).await?;
        if is_support_address(&mut conn, &recipient.schema, &from.address).await? {
            return Ok(ignored("sent from our own address (a loop)".to_owned()));
        }
        match threading::known(&mut conn, &recipient.schema, &mail.message_id).await? {
            Some(true) => return Ok(ignored("our own message came back".to_owned())),
            Some(false) => return Ok(Receipt::Duplicate),
            None => {}
        }
    }

    // The bytes first, outside the transaction; deleted again if it does not commit.
    let raw_key = mail_path(recipient.workspace_id, Uuid::now_v7());
    state
        .files
        .store
        .put(&raw_key, raw.clone().into())
        .await
        .map_err(store_failed)?;
    let (mut carried, mut inline, mut refused) = (Vec::new(), Vec::new(), Vec::new());
    let stored = store_files(
        state,
        &recipient,
        mail,
        &mut carried,
        &mut inline,
        &mut refused,
    );
    let written = match stored.await {
        Ok(()) => {
            let parts = Parts {
                mail,
                inline: &inline,
                from: EmailParty::from(&from),
                sender,
                recipients,
                raw_key: raw_key.as_ref(),
            };
            record(state, &recipient, parts, &carried, &refused).await
        }
        Err(e) => Err(e),
    };
    let outcome = match written {
        Ok(Some((receipt, unrecorded))) => {
            // Stored, then refused for the workspace's quota: nothing names them.
            for id in unrecorded {
                upload::forget_stored(state, recipient.workspace_id, id).await;
            }
            return Ok(receipt);
        }
        Ok(None) => Ok(Receipt::Duplicate),
        Err(Error::TooManyRequests { .. }) => Ok(ignored(format!(
            "more than {NEW_THREADS_PER_HOUR} new conversations in an hour from this sender"
        ))),
        Err(e) => Err(e),
    };
    for file in &carried {
        upload::forget_stored(state, recipient.workspace_id, file.id).await;
    }
    if let Err(e) = state.files.store.delete(&raw_key).await {
        tracing::warn!(error = %e, "deleting a refused email's original failed");
    }
    outcome
}

/// What [`record`] writes of a message.
struct Parts<'a> {
    mail: &'a InboundMail,
    /// The `Content-ID` of each stored file the HTML may show inline, and its attachment.
    inline: &'a [(String, Uuid)],
    from: EmailParty,
    sender: EmailAddress,
    recipients: &'a [String],
    raw_key: &'a str,
}

fn ignored(reason: String) -> Receipt {
    metrics::counter!("email_ignored_total").increment(1);
    tracing::info!(%reason, "an email was ignored");
    Receipt::Ignored { reason }
}

async fn is_support_address(
    conn: &mut sqlx::PgConnection,
    schema: &TenantSchema,
    address: &str,
) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        schema.sql("SELECT EXISTS (SELECT 1 FROM {schema}.email_settings WHERE address = $1)"),
    )
    .bind(address)
    .fetch_one(conn)
    .await
}

/// Stores the message's files; refused ones are listed with the reason. (A message that could
/// not be read has its raw original kept in the store all the same, and its body says so.)
async fn store_files(
    state: &AppState,
    recipient: &Recipient,
    mail: &InboundMail,
    carried: &mut Vec<Carried>,
    inline: &mut Vec<(String, Uuid)>,
    refused: &mut Vec<String>,
) -> Result<()> {
    for file in &mail.files {
        match upload::store_carried(
            state,
            recipient.workspace_id,
            &file.name,
            file.bytes.clone(),
            AGENT_MAX_BYTES,
        )
        .await?
        {
            Ok(stored) => {
                if let Some(cid) = &file.content_id {
                    inline.push((cid.clone(), stored.id));
                }
                carried.push(stored);
            }
            Err(reason) => refused.push(reason),
        }
    }
    Ok(())
}

/// Marks our replies a bounce returns as undelivered.
async fn bounce(state: &AppState, recipient: &Recipient, mail: &InboundMail) -> Result<Receipt> {
    let reason: String = mail
        .text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    let reason: String = format!("returned by the recipient's server: {reason}")
        .chars()
        .take(500)
        .collect();
    let mut conn = state.db.acquire().await?;
    let undelivered = sqlx::query(recipient.schema.sql(
        "UPDATE {schema}.email_messages SET delivery_status = 'failed', delivery_error = $2
          WHERE rfc_message_id = ANY($1) AND delivery_status IS NOT NULL",
    ))
    .bind(&mail.bounced)
    .bind(&reason)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    metrics::counter!("email_bounces_total").increment(1);
    Ok(Receipt::Bounce { undelivered })
}

/// The message's body: its new words, then a line for each file that was not taken.
fn body(mail: &InboundMail, refused: &[String]) -> (String, Option<String>) {
    let split = quotes::split(&mail.text);
    let mut body = split.new;
    if mail.unreadable && body.is_empty() {
        body = "(This email could not be read as MIME; its original is kept.)".to_owned();
    }
    for reason in refused {
        if !body.is_empty() {
            body.push('\n');
        }
        body.push_str(&format!("[A file was not accepted: {reason}]"));
    }
    (body, split.collapsed)
}

/// The transaction: contact, thread, intake, files, email details, Message-ID, events.
/// `Ok(None)` when a concurrent delivery of the same message won; else the receipt and the
/// stored files that were not recorded (the workspace's quota refused them), for the caller
/// to delete.
async fn record(
    state: &AppState,
    recipient: &Recipient,
    parts: Parts<'_>,
    carried: &[Carried],
    refused: &[String],
) -> Result<Option<(Receipt, Vec<Uuid>)>> {
    let Parts {
        mail,
        inline,
        from,
        sender,
        recipients,
        raw_key,
    } = parts;
    let schema = &recipient.schema;
    let dmarc_failed = mail.authentication.dmarc_failed();
    let new_contact = NewContact::from_sender(sender, from.name.as_deref());
    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    let upserted = if dmarc_failed {
        contacts::upsert_unverified_sender(&mut tx, schema, &new_contact).await?
    } else {
        contacts::upsert(&mut tx, schema, &new_contact).await?
    };
    let contact = LockedContact::lock(&mut tx, schema, upserted.contact.id)
        .await?
        .ok_or_else(|| Error::Internal(anyhow::anyhow!("a contact just written vanished")))?;
    let mut file_ids = Vec::with_capacity(carried.len());
    let (mut over_quota, mut unrecorded) = (Vec::new(), Vec::new());
    for file in carried {
        let new = file.recorded_as(Uploader::Visitor(contact.id()));
        match attachments::insert(&mut tx, schema, &new, state.files.quota).await? {
            Some(_) => file_ids.push(file.id),
            None => {
                over_quota.push(format!("{}: the workspace's storage is full", file.name));
                unrecorded.push(file.id);
            }
        }
    }
    // An image refused for the quota keeps its `cid:` (a broken image, not a dead link).
    let inline: Vec<(String, Uuid)> = inline
        .iter()
        .filter(|(_, id)| file_ids.contains(id))
        .cloned()
        .collect();
    let found = threading::find(
        &mut tx,
        schema,
        mail,
        recipients,
        contact.id(),
        &state.settings.inbound.domain,
    )
    .await?;
    let subject = (!mail.subject.is_empty()).then_some(mail.subject.as_str());
    let target = match found {
        Some((id, _)) => Target::Thread { id, subject },
        None => Target::New { subject },
    };
    let refused: Vec<String> = refused.iter().cloned().chain(over_quota).collect();
    let (body, quoted) = body(mail, &refused);
    let contact_id = contact.id();
    let mut taken = intake::intake(
        &mut tx,
        schema,
        contact,
        Channel::Email,
        target,
        &body,
        &file_ids,
        async |destination| {
            if destination == Destination::New {
                new_thread_allowed(state, schema, contact_id).await
            } else {
                Ok(())
            }
        },
    )
    .await?;
    if !threading::remember(
        &mut tx,
        schema,
        &mail.message_id,
        taken.conversation_id,
        false,
    )
    .await?
    {
        tx.rollback().await?;
        return Ok(None);
    }
    let details = EmailDetails {
        from,
        to: mail.to.iter().map(EmailParty::from).collect(),
        cc: mail.cc.iter().map(EmailParty::from).collect(),
        subject: mail.subject.clone(),
        html: mail
            .html
            .as_deref()
            .map(|html| link_inline_files(html, &inline)),
        quoted,
        dmarc_failed,
        sender_checks: Some(SenderChecks::from(&mail.authentication)),
        delivery: None,
    };
    let message_id = taken.message.message.id;
    insert_details(
        &mut tx,
        schema,
        message_id,
        taken.conversation_id,
        mail,
        &details,
        raw_key,
    )
    .await?;
    taken.message.message.email = Some(Box::new(details));
    let events: Vec<DomainEvent> = DomainEvent::contact_upserted(&upserted)
        .into_iter()
        .chain(taken.events())
        .collect();
    let recorded = log::append(&mut tx, schema, By::Visitor(contact_id), events).await?;
    tx.commit().await?;
    state.events.committed(recipient.workspace_id, recorded);
    metrics::counter!("email_received_total").increment(1);
    tracing::info!(
        conversation_id = %taken.conversation_id,
        threaded_by = ?found.map(|(_, by): (Uuid, FoundBy)| by),
        "an email was received"
    );
    let receipt = Receipt::Added {
        conversation_id: taken.conversation_id,
        message_id: taken.message.message.id,
        opened: taken.opened.is_some(),
    };
    Ok(Some((receipt, unrecorded)))
}

/// The HTML with each `cid:` image pointing at its stored file (`attachment:<id>`, which the
/// dashboard turns into the file's short-lived link).
fn link_inline_files(html: &str, inline: &[(String, Uuid)]) -> String {
    inline.iter().fold(html.to_owned(), |html, (cid, id)| {
        html.replace(&format!("\"cid:{cid}\""), &format!("\"attachment:{id}\""))
    })
}

async fn new_thread_allowed(
    state: &AppState,
    schema: &TenantSchema,
    contact_id: Uuid,
) -> Result<()> {
    let mut conn = state.reads.get(schema).await?;
    let recent: i64 = sqlx::query_scalar(schema.sql(
        "SELECT count(*) FROM {schema}.conversations
          WHERE contact_id = $1 AND channel = 'email' AND created_at > now() - interval '1 hour'",
    ))
    .bind(contact_id)
    .fetch_one(&mut *conn)
    .await?;
    if recent >= NEW_THREADS_PER_HOUR {
        return Err(Error::TooManyRequests {
            retry_after: std::time::Duration::from_secs(3600),
        });
    }
    Ok(())
}

async fn insert_details(
    conn: &mut sqlx::PgConnection,
    schema: &TenantSchema,
    message_id: Uuid,
    conversation_id: Uuid,
    mail: &InboundMail,
    details: &EmailDetails,
    raw_key: &str,
) -> sqlx::Result<()> {
    sqlx::query(schema.sql(
        "INSERT INTO {schema}.email_messages
                (message_id, conversation_id, rfc_message_id, in_reply_to, refs, from_address,
                 from_name, to_addresses, cc_addresses, subject, html, quoted, raw_key,
                 authentication, dmarc_failed)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
    ))
    .bind(message_id)
    .bind(conversation_id)
    .bind(&mail.message_id)
    .bind(mail.in_reply_to.first())
    .bind(&mail.references)
    .bind(&details.from.address)
    .bind(&details.from.name)
    .bind(sqlx::types::Json(&details.to))
    .bind(sqlx::types::Json(&details.cc))
    .bind(&details.subject)
    .bind(&details.html)
    .bind(&details.quoted)
    .bind(raw_key)
    .bind(sqlx::types::Json(&details.sender_checks))
    .bind(details.dmarc_failed)
    .execute(conn)
    .await?;
    Ok(())
}
