//! Visitors as contacts: an anonymous visitor is one contact per visitor id (minted here,
//! never taken from the client), an identified one a contact per external id. A visitor
//! reads only their own contact's conversations, so how a session maps to a contact is the
//! widget's access control:
//!
//! - an email from a visitor (the contact form, or an identity: its signature covers the
//!   external id only) is kept as `claimed_email`, which never finds a contact, so no claim
//!   routes an agent's conversation with that address into a visitor's widget;
//! - an unverified identity never takes over a contact that a verified one made;
//! - when a signed identity first names a contact that unverified sessions made, the contact
//!   is verified from then on: the tokens those sessions hold are refused
//!   (`super::visitor`), and the name and email they wrote are dropped for the verified
//!   session's own, so nothing a claim wrote passes for the verified person's word;
//! - a visitor id the API did not mint for this workspace names nothing.

use serde::Deserialize;
use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::conversations::record as conversations;
use crate::email_address::EmailAddress;
use crate::error::{Error, FieldChecks, Result};
use crate::events::catalogue::{ConversationChange, DomainEvent};
use crate::inbox::contacts::{Contact, NAME_MAX_CHARS};
use crate::tickets::record as tickets;

const EXTERNAL_ID_MAX_CHARS: usize = 255;

/// Who the customer's site says the visitor is.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IdentityInput {
    /// The visitor's id in the customer's own system.
    #[schema(example = "user-42")]
    external_id: String,
    email: Option<String>,
    name: Option<String>,
    /// `hex(HMAC-SHA256(identity secret, externalId))`, computed on the customer's server.
    hash: Option<String>,
}

/// A checked [`IdentityInput`].
#[derive(Debug)]
pub struct Identity {
    pub external_id: String,
    pub email: Option<EmailAddress>,
    pub name: Option<String>,
    pub hash: Option<String>,
}

impl IdentityInput {
    pub fn check(self, checks: &mut FieldChecks) -> Option<Identity> {
        let external_id = self.external_id.trim().to_owned();
        if external_id.is_empty() || external_id.chars().count() > EXTERNAL_ID_MAX_CHARS {
            checks.add(
                "identity.externalId",
                format!("must be 1 to {EXTERNAL_ID_MAX_CHARS} characters"),
            );
        }
        let email = match self.email.filter(|e| !e.trim().is_empty()) {
            Some(email) => checks.check("identity.email", EmailAddress::parse(&email)),
            None => None,
        };
        let name = checks.check("identity.name", name(self.name)).flatten();
        checks.is_empty().then_some(Identity {
            external_id,
            email,
            name,
            hash: self.hash,
        })
    }
}

/// A trimmed name of at most [`NAME_MAX_CHARS`]; blank is none.
pub fn name(value: Option<String>) -> Result<Option<String>, String> {
    let value = value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    match value {
        Some(v) if v.chars().count() > NAME_MAX_CHARS => {
            Err(format!("must be at most {NAME_MAX_CHARS} characters"))
        }
        other => Ok(other),
    }
}

/// The columns of a [`Contact`] as a visitor's statements return it.
const CONTACT: &str = "id, name, email, claimed_email, external_id";

/// The anonymous contact of a visitor id this workspace minted, if any.
pub async fn known_visitor(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    visitor_id: Uuid,
) -> Result<Option<Contact>> {
    Ok(sqlx::query_as(schema.sql(&format!(
        "SELECT {CONTACT} FROM {{schema}}.contacts WHERE visitor_id = $1"
    )))
    .bind(visitor_id)
    .fetch_optional(conn)
    .await?)
}

/// The anonymous visitor's contact, made when `visitor_id` is new (or absent, or unknown
/// here); with the visitor id the browser keeps from now on, and whether it was made now.
pub async fn anonymous(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    visitor_id: Option<Uuid>,
) -> Result<(Contact, Uuid, bool)> {
    if let Some(visitor_id) = visitor_id
        && let Some(contact) = known_visitor(&mut *conn, schema, visitor_id).await?
    {
        return Ok((contact, visitor_id, false));
    }
    let visitor_id = Uuid::new_v4();
    let contact = sqlx::query_as(schema.sql(&format!(
        "INSERT INTO {{schema}}.contacts (visitor_id) VALUES ($1) RETURNING {CONTACT}"
    )))
    .bind(visitor_id)
    .fetch_one(conn)
    .await?;
    Ok((contact, visitor_id, true))
}

/// What [`identified`] found or made.
pub struct Identified {
    pub contact: Contact,
    /// The contact existed unverified and this signed identity verified it: tokens issued to
    /// it before are refused from now on, and their hub connections are to close.
    pub newly_verified: bool,
    /// The contact was made now.
    pub created: bool,
    /// An existing contact's name or claimed email changed.
    pub changed: bool,
    /// What the anonymous contact's conversations and tickets becoming this contact's
    /// recorded, to follow the contact's own event.
    pub handed_over: Vec<DomainEvent>,
}

/// The identified visitor's contact, made on first sight of its external id. `verified`: the
/// identity carried a valid HMAC. A contact a verified identity made refuses an unverified
/// one. The name and email the identity carries are kept (the email as a claim); the first
/// verified session replaces what unverified ones wrote, rather than adding to it.
///
/// `anonymous_visitor`: the same browser's anonymous contact (a visitor id this workspace
/// minted), whose conversations are handed over, so a visitor who signs in mid-chat keeps
/// the thread.
pub async fn identified(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    identity: &Identity,
    verified: bool,
    anonymous_visitor: Option<Uuid>,
) -> Result<Identified> {
    // Racing first sessions of one identity: one insert wins, both then read the same row.
    let created = sqlx::query(schema.sql(
        "INSERT INTO {schema}.contacts (external_id, identity_verified) VALUES ($1, $2)
         ON CONFLICT (external_id) DO NOTHING",
    ))
    .bind(&identity.external_id)
    .bind(verified)
    .execute(&mut *conn)
    .await?
    .rows_affected()
        == 1;
    let (id, was_verified, name_before, claim_before): (
        Uuid,
        bool,
        Option<String>,
        Option<String>,
    ) = sqlx::query_as(schema.sql(
        "SELECT id, identity_verified, name, claimed_email FROM {schema}.contacts
          WHERE external_id = $1 FOR UPDATE",
    ))
    .bind(&identity.external_id)
    .fetch_one(&mut *conn)
    .await?;
    if was_verified && !verified {
        return Err(Error::Unauthorized(
            "this visitor's identity must be verified: send its hash",
        ));
    }
    let newly_verified = verified && !was_verified;
    let contact: Contact = sqlx::query_as(schema.sql(&format!(
        "UPDATE {{schema}}.contacts
            SET name = CASE WHEN $5 THEN $2 ELSE coalesce($2, name) END,
                claimed_email = CASE WHEN $5 THEN $3 ELSE coalesce($3, claimed_email) END,
                identity_verified = identity_verified OR $4, updated_at = now()
          WHERE id = $1
          RETURNING {CONTACT}"
    )))
    .bind(id)
    .bind(&identity.name)
    .bind(identity.email.as_ref().map(EmailAddress::as_str))
    .bind(verified)
    .bind(newly_verified)
    .fetch_one(&mut *conn)
    .await?;
    let handed_over = match anonymous_visitor {
        Some(visitor_id) => hand_over(conn, schema, visitor_id, contact.id).await?,
        None => Vec::new(),
    };
    let changed =
        !created && (contact.name != name_before || contact.claimed_email != claim_before);
    Ok(Identified {
        contact,
        newly_verified,
        created,
        changed,
        handed_over,
    })
}

/// Gives the anonymous contact's conversations and tickets to `to`; the events that record
/// it (each conversation's new contact, each ticket's new requester).
async fn hand_over(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    visitor_id: Uuid,
    to: Uuid,
) -> Result<Vec<DomainEvent>> {
    // The anonymous contact first, then one statement per table (a data-modifying CTE that
    // also reads another table is a plan Citus runs in steps, shipping each step's rows to
    // every worker node).
    let from: Vec<Uuid> = sqlx::query_scalar(schema.sql(
        "SELECT id FROM {schema}.contacts
          WHERE visitor_id = $1 AND external_id IS NULL AND id <> $2",
    ))
    .bind(visitor_id)
    .bind(to)
    .fetch_all(&mut *conn)
    .await?;
    if from.is_empty() {
        return Ok(Vec::new());
    }
    let conversations = conversations::hand_over(&mut *conn, schema, &from, to).await?;
    let tickets = tickets::hand_over(conn, schema, &from, to).await?;
    Ok(DomainEvent::moved(
        ConversationChange::Contact,
        conversations,
        tickets,
    ))
}

/// The visitor tells us their email or name (`POST /widget/v1/contact`), for replies by
/// email. The email is a claim: shown to agents, never a way to find the contact.
pub async fn update(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    contact_id: Uuid,
    email: Option<&EmailAddress>,
    name: Option<&str>,
) -> Result<Contact> {
    sqlx::query_as(schema.sql(&format!(
        "UPDATE {{schema}}.contacts
            SET claimed_email = coalesce($2, claimed_email), name = coalesce($3, name),
                updated_at = now()
          WHERE id = $1
          RETURNING {CONTACT}"
    )))
    .bind(contact_id)
    .bind(email.map(EmailAddress::as_str))
    .bind(name)
    .fetch_optional(conn)
    .await?
    .ok_or(Error::NotFound("contact"))
}
