//! An agent's reply on an email conversation goes out by email: in the reply's transaction it
//! gets its email details (a Message-ID of our own, the thread's `In-Reply-To` and
//! `References`, To and Cc as the thread had them unless the agent chose others, the subject
//! with the conversation's reference), its Message-ID joins the thread, and an outbox message
//! asks the worker to send it. So a reply is never recorded without its email, and an SMTP outage only delays it; the
//! worker records the delivery (`delivery.status`) on the message.

use sqlx::PgConnection;
use sqlx::types::Json;
use supportdesk_core::outbox::{self, OutboxMessage};
use supportdesk_core::tenancy::TenantSchema;
use uuid::Uuid;

use super::address::{self, our_message_id};
use super::details::{Delivery, DeliveryStatus, EmailDetails, EmailParty};
use super::threading;
use crate::conversations::messages::Recipients;
use crate::error::{Error, Result};

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
/// conversation (where recipients chosen are refused). In the reply's transaction, after the
/// reply.
pub async fn schedule(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    conversation_id: Uuid,
    message_id: Uuid,
    domain: &str,
    chosen: &Recipients,
) -> Result<Option<EmailDetails>> {
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
        if chosen.chosen() {
            return Err(Error::invalid_field(
                "to",
                "only a reply on an email conversation has recipients",
            ));
        }
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
    // Not ours, with or without a `+tag` (a reply token).
    let theirs = |party: &EmailParty| {
        let address = party.address.as_str();
        let base = address
            .split_once('+')
            .map_or(address.to_owned(), |(local, _)| {
                format!("{local}@{}", address.rsplit_once('@').map_or("", |x| x.1))
            });
        !ours(address) && !ours(&base)
    };

    let (to, cc, in_reply_to, refs) = match &answered {
        Some(a) => {
            let to = EmailParty {
                address: a.from_address.clone(),
                name: a.from_name.clone(),
            };
            let mut cc: Vec<EmailParty> = Vec::new();
            for party in a.to_addresses.0.iter().chain(&a.cc_addresses.0) {
                if theirs(party)
                    && party.address != to.address
                    && !cc.iter().any(|c| c.address == party.address)
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
            let to = contact_address.map(|address| EmailParty {
                address,
                name: contact_name,
            });
            (to.into_iter().collect(), Vec::new(), None, Vec::new())
        }
    };
    let (to, cc) = choose(to, cc, chosen);
    // Neither the thread's nor the agent's choice sends the reply to our own addresses.
    let to: Vec<EmailParty> = to.into_iter().filter(|p| theirs(p)).collect();
    let cc: Vec<EmailParty> = cc.into_iter().filter(|p| theirs(p)).collect();
    if to.is_empty() {
        if chosen.chosen() {
            return Err(Error::invalid_field(
                "to",
                "needs at least one address that is not the workspace's own",
            ));
        }
        // No one to send to: the reply stays in the conversation only.
        return Ok(None);
    }
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

/// To and Cc: the thread's, each replaced by the agent's choice when they made one, an address
/// the thread knew keeping its name.
fn choose(
    to: Vec<EmailParty>,
    cc: Vec<EmailParty>,
    chosen: &Recipients,
) -> (Vec<EmailParty>, Vec<EmailParty>) {
    let known: Vec<EmailParty> = to.iter().chain(&cc).cloned().collect();
    let pick = |list: &[crate::email_address::EmailAddress]| -> Vec<EmailParty> {
        list.iter()
            .map(|address| EmailParty {
                address: address.as_str().to_owned(),
                name: known
                    .iter()
                    .find(|p| p.address.eq_ignore_ascii_case(address.as_str()))
                    .and_then(|p| p.name.clone()),
            })
            .collect()
    };
    let to = chosen.to.as_deref().map_or(to, pick);
    let cc = chosen.cc.as_deref().map_or(cc, pick);
    (to, cc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::email_address::EmailAddress;

    fn party(address: &str, name: Option<&str>) -> EmailParty {
        EmailParty {
            address: address.into(),
            name: name.map(Into::into),
        }
    }

    #[test]
    fn the_agents_choice_replaces_the_threads_recipients_keeping_known_names() {
        let to = vec![party("carla@example.com", Some("Carla"))];
        let cc = vec![party("boss@example.com", Some("Boss"))];
        let kept = choose(to.clone(), cc.clone(), &Recipients::default());
        assert_eq!(kept.0[0].address, "carla@example.com");
        assert_eq!(kept.1[0].name.as_deref(), Some("Boss"));

        let chosen = Recipients {
            to: Some(vec![EmailAddress::parse("boss@example.com").unwrap()]),
            cc: Some(Vec::new()),
        };
        let (to, cc) = choose(to, cc, &chosen);
        assert_eq!(to.len(), 1);
        assert_eq!(to[0].address, "boss@example.com");
        assert_eq!(to[0].name.as_deref(), Some("Boss"));
        assert!(cc.is_empty());
    }
}
