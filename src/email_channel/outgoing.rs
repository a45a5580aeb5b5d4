//! An agent's reply on an email conversation goes out by email: in the reply's transaction it
//! gets its email details (a Message-ID of our own, the thread's `In-Reply-To` and
//! `References`, To and Cc as the thread had them, the subject with the conversation's
//! reference), its Message-ID joins the thread, and an outbox message asks the worker to send
//! it. So a reply is never recorded without its email, and an SMTP outage only delays it; the
//! worker records the delivery (`delivery.status`) on the message.

use sqlx::PgConnection;
use sqlx::types::Json;
use supportdesk_core::outbox::{self, OutboxMessage};
use supportdesk_core::tenancy::TenantSchema;
use uuid::Uuid;

use super::address::{self, our_message_id};
use super::details::{Delivery, DeliveryStatus, EmailDetails, EmailParty};
use super::threading;

/// How many ids of the thread `References` carries at most (the first and the newest).
const REFERENCES_KEPT: usize = 20;

/// An email conversation and its contact.
#[derive(sqlx::FromRow)]
struct EmailConversation {
    number: i64,
    subject: Option<String>,
    contact_address: Option<String>,
    contact_name: Option<String>,
}

/// The newest received message of a conversation, which the reply answers.
#[derive(sqlx::FromRow)]
struct Answered {
    rfc_message_id: String,
    refs: Vec<String>,
    from_address: String,
    from_name: Option<String>,
    to_addresses: Json<Vec<EmailParty>>,
    cc_addresses: Json<Vec<EmailParty>>,
}

/// Records reply `message_id` of conversation `conversation_id` as an email and queues it,
/// when the conversation is an email one; its email details, or `None` for any other
/// conversation. In the reply's transaction, after the reply.
pub async fn schedule(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    conversation_id: Uuid,
    message_id: Uuid,
    domain: &str,
) -> sqlx::Result<Option<EmailDetails>> {
    let conversation: Option<EmailConversation> = sqlx::query_as(schema.sql(
        "SELECT c.number, c.subject, coalesce(ct.email, ct.claimed_email) AS contact_address,
                ct.name AS contact_name
           FROM {schema}.conversations c JOIN {schema}.contacts ct ON ct.id = c.contact_id
          WHERE c.id = $1 AND c.channel = 'email'",
    ))
    .bind(conversation_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(EmailConversation {
        number,
        subject,
        contact_address,
        contact_name,
    }) = conversation
    else {
        return Ok(None);
    };
    let answered: Option<Answered> = sqlx::query_as(schema.sql(
        "SELECT e.rfc_message_id, e.refs, e.from_address, e.from_name, e.to_addresses,
                e.cc_addresses
           FROM {schema}.email_messages e
          WHERE e.conversation_id = $1 AND e.delivery_status IS NULL
          ORDER BY e.created_at DESC LIMIT 1",
    ))
    .bind(conversation_id)
    .fetch_optional(&mut *conn)
    .await?;
    let support: Option<String> =
        sqlx::query_scalar(schema.sql("SELECT address FROM {schema}.email_settings"))
            .fetch_optional(&mut *conn)
            .await?
            .flatten();
    let (workspace_id, forwarding): (Uuid, String) = sqlx::query_as(
        "SELECT id, slug || '.' || inbound_tag || '@' || $2 FROM public.workspaces
          WHERE schema_name = $1",
    )
    .bind(schema.name())
    .bind(domain)
    .fetch_one(&mut *conn)
    .await?;
    let from_address = support.clone().unwrap_or(forwarding.clone());
    // The support address, and any at the forwarding domain (the forwarding address, ours).
    let ours = |address: &str| {
        support.as_deref() == Some(address) || address.ends_with(&format!("@{domain}"))
    };

    let (to, cc, in_reply_to, refs) = match &answered {
        Some(a) => {
            let to = EmailParty {
                address: a.from_address.clone(),
                name: a.from_name.clone(),
            };
            let mut cc: Vec<EmailParty> = Vec::new();
            for party in a.to_addresses.0.iter().chain(&a.cc_addresses.0) {
                let address = party.address.as_str();
                let base = address
                    .split_once('+')
                    .map_or(address.to_owned(), |(local, _)| {
                        format!("{local}@{}", address.rsplit_once('@').map_or("", |x| x.1))
                    });
                if !ours(address)
                    && !ours(&base)
                    && address != to.address
                    && !cc.iter().any(|c| c.address == address)
                {
                    cc.push(party.clone());
                }
            }
            let mut refs = a.refs.clone();
            refs.push(a.rfc_message_id.clone());
            if refs.len() > REFERENCES_KEPT {
                let first = refs[0].clone();
                let newest = refs.split_off(refs.len() - (REFERENCES_KEPT - 1));
                refs = std::iter::once(first).chain(newest).collect();
            }
            (vec![to], cc, Some(a.rfc_message_id.clone()), refs)
        }
        None => {
            let Some(address) = contact_address else {
                return Ok(None);
            };
            let to = EmailParty {
                address,
                name: contact_name,
            };
            (vec![to], Vec::new(), None, Vec::new())
        }
    };
    let subject = address::reply_subject(subject.as_deref().unwrap_or(""), number);
    let rfc_message_id = our_message_id(message_id, domain);
    let details = EmailDetails {
        from: EmailParty {
            address: from_address,
            name: None,
        },
        to,
        cc,
        subject,
        html: None,
        quoted: None,
        dmarc_failed: false,
        sender_checks: None,
        delivery: Some(Delivery {
            status: DeliveryStatus::Pending,
            error: None,
        }),
    };
    sqlx::query(schema.sql(
        "INSERT INTO {schema}.email_messages
                (message_id, conversation_id, rfc_message_id, in_reply_to, refs, from_address,
                 to_addresses, cc_addresses, subject, delivery_status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending')",
    ))
    .bind(message_id)
    .bind(conversation_id)
    .bind(&rfc_message_id)
    .bind(&in_reply_to)
    .bind(&refs)
    .bind(&details.from.address)
    .bind(Json(&details.to))
    .bind(Json(&details.cc))
    .bind(&details.subject)
    .execute(&mut *conn)
    .await?;
    threading::remember(&mut *conn, schema, &rfc_message_id, conversation_id, true).await?;
    outbox::enqueue(
        &mut *conn,
        &OutboxMessage::ConversationEmail {
            workspace_id,
            message_id,
        },
    )
    .await?;
    Ok(Some(details))
}
