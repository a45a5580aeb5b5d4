//! The email side of a message as the REST API, the hub and the event log show it: who wrote
//! to whom, the subject, the sanitised HTML and the collapsed history, what the receiving
//! server said of the sender, and for our replies whether they were delivered.

use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use sqlx::types::Json;
use supportdesk_core::tenancy::TenantSchema;
use utoipa::ToSchema;
use uuid::Uuid;

use super::parse::{Authentication, Mailbox};

/// An address and the name shown beside it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct EmailParty {
    #[schema(example = "carla@example.org")]
    pub address: String,
    #[schema(example = "Carla Diaz")]
    pub name: Option<String>,
}

impl From<&Mailbox> for EmailParty {
    fn from(m: &Mailbox) -> Self {
        Self {
            address: m.address.clone(),
            name: m.name.clone(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum DeliveryStatus {
    Pending,
    Sent,
    Failed,
}

/// Whether our reply reached the customer's server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Delivery {
    pub status: DeliveryStatus,
    /// Why it failed (the server's answer, or the bounce it sent back).
    pub error: Option<String>,
}

/// SPF, DKIM and DMARC as the receiving server found them (`pass`, `fail`, `none`, ...).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SenderChecks {
    pub spf: Option<String>,
    pub dkim: Option<String>,
    pub dmarc: Option<String>,
}

impl From<&Authentication> for SenderChecks {
    fn from(a: &Authentication) -> Self {
        Self {
            spf: a.spf.clone(),
            dkim: a.dkim.clone(),
            dmarc: a.dmarc.clone(),
        }
    }
}

/// A message's email details.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmailDetails {
    pub from: EmailParty,
    pub to: Vec<EmailParty>,
    pub cc: Vec<EmailParty>,
    pub subject: String,
    /// The HTML the sender wrote, sanitised (no script, no forms, no styles); null for plain
    /// text mail and for our replies.
    pub html: Option<String>,
    /// The quoted history and signature the body leaves out, kept as written.
    pub quoted: Option<String>,
    /// The sender failed DMARC: their `From` may be forged.
    pub dmarc_failed: bool,
    pub sender_checks: Option<SenderChecks>,
    /// Our replies only.
    pub delivery: Option<Delivery>,
}

#[derive(sqlx::FromRow)]
struct Row {
    message_id: Uuid,
    from_address: String,
    from_name: Option<String>,
    to_addresses: Json<Vec<EmailParty>>,
    cc_addresses: Json<Vec<EmailParty>>,
    subject: String,
    html: Option<String>,
    quoted: Option<String>,
    dmarc_failed: bool,
    authentication: Option<Json<SenderChecks>>,
    delivery_status: Option<DeliveryStatus>,
    delivery_error: Option<String>,
}

impl From<Row> for (Uuid, EmailDetails) {
    fn from(r: Row) -> Self {
        (
            r.message_id,
            EmailDetails {
                from: EmailParty {
                    address: r.from_address,
                    name: r.from_name,
                },
                to: r.to_addresses.0,
                cc: r.cc_addresses.0,
                subject: r.subject,
                html: r.html,
                quoted: r.quoted,
                dmarc_failed: r.dmarc_failed,
                sender_checks: r.authentication.map(|a| a.0),
                delivery: r.delivery_status.map(|status| Delivery {
                    status,
                    error: r.delivery_error,
                }),
            },
        )
    }
}

/// The email details of those of `ids` that have them.
pub async fn of_messages(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    ids: &[Uuid],
) -> sqlx::Result<std::collections::HashMap<Uuid, EmailDetails>> {
    if ids.is_empty() {
        return Ok(std::collections::HashMap::new());
    }
    let rows: Vec<Row> = sqlx::query_as(schema.sql(
        "SELECT message_id, from_address, from_name, to_addresses, cc_addresses, subject, html,
                quoted, dmarc_failed, authentication, delivery_status, delivery_error
           FROM {schema}.email_messages WHERE message_id = ANY($1)",
    ))
    .bind(ids)
    .fetch_all(conn)
    .await?;
    Ok(rows.into_iter().map(Into::into).collect())
}
