//! Visitors as contacts: an anonymous visitor is one contact per visitor id (minted here,
//! never taken from the client), an identified one a contact per external id. A visitor
//! reads only their own contact's conversations, so how a session maps to a contact is the
//! widget's access control: an unverified identity never takes over a contact that a
//! verified one made, nor one an agent created by email.

use serde::Deserialize;
use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::email_address::EmailAddress;
use crate::error::{Error, FieldChecks, OnConstraint, Result};
use crate::inbox::contacts::{Contact, NAME_MAX_CHARS};

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

/// The anonymous visitor's contact, made when `visitor_id` is new (or absent, or unknown
/// here); with the visitor id the browser keeps from now on.
pub async fn anonymous(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    visitor_id: Option<Uuid>,
) -> Result<(Contact, Uuid)> {
    if let Some(visitor_id) = visitor_id {
        let known: Option<Contact> = sqlx::query_as(
            schema.sql("SELECT id, name, email FROM {schema}.contacts WHERE visitor_id = $1"),
        )
        .bind(visitor_id)
        .fetch_optional(&mut *conn)
        .await?;
        if let Some(contact) = known {
            return Ok((contact, visitor_id));
        }
    }
    let visitor_id = Uuid::new_v4();
    let contact =
        sqlx::query_as(schema.sql(
            "INSERT INTO {schema}.contacts (visitor_id) VALUES ($1) RETURNING id, name, email",
        ))
        .bind(visitor_id)
        .fetch_one(conn)
        .await?;
    Ok((contact, visitor_id))
}

/// The identified visitor's contact. `verified`: the identity carried a valid HMAC.
///
/// - A contact with the external id: it, unless it was verified and this identity is not.
/// - Else, when verified, the contact an agent made with the same email takes the id.
/// - Else a new contact; its email only if no other contact has it (an unverified identity
///   must not borrow someone's address).
///
/// The anonymous contact of the same browser (`visitor_id`) hands its conversations over, so
/// a visitor who signs in mid-chat keeps the thread.
pub async fn identified(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    identity: &Identity,
    verified: bool,
    visitor_id: Option<Uuid>,
) -> Result<Contact> {
    let email = identity.email.as_ref().map(EmailAddress::as_str);
    let known: Option<(Uuid, bool)> = sqlx::query_as(schema.sql(
        "SELECT id, identity_verified FROM {schema}.contacts WHERE external_id = $1 FOR UPDATE",
    ))
    .bind(&identity.external_id)
    .fetch_optional(&mut *conn)
    .await?;
    let contact: Contact = match known {
        Some((_, true)) if !verified => {
            return Err(Error::Unauthorized(
                "this visitor's identity must be verified: send its hash",
            ));
        }
        Some((id, _)) => {
            sqlx::query_as(schema.sql(
                "UPDATE {schema}.contacts AS c
                    SET name = coalesce($2, c.name),
                        email = CASE WHEN $3::text IS NOT NULL AND NOT EXISTS
                                       (SELECT 1 FROM {schema}.contacts o
                                         WHERE o.email = $3 AND o.id <> c.id)
                                     THEN $3 ELSE c.email END,
                        identity_verified = c.identity_verified OR $4,
                        updated_at = now()
                  WHERE c.id = $1
                  RETURNING id, name, email",
            ))
            .bind(id)
            .bind(&identity.name)
            .bind(email)
            .bind(verified)
            .fetch_one(&mut *conn)
            .await?
        }
        None => {
            let claimed: Option<Contact> = if verified && email.is_some() {
                sqlx::query_as(schema.sql(
                    "UPDATE {schema}.contacts
                        SET external_id = $1, identity_verified = true,
                            name = coalesce(name, $3), updated_at = now()
                      WHERE email = $2 AND external_id IS NULL AND visitor_id IS NULL
                      RETURNING id, name, email",
                ))
                .bind(&identity.external_id)
                .bind(email)
                .bind(&identity.name)
                .fetch_optional(&mut *conn)
                .await?
            } else {
                None
            };
            match claimed {
                Some(contact) => contact,
                None => sqlx::query_as(schema.sql(
                    "INSERT INTO {schema}.contacts (external_id, email, name, identity_verified)
                     VALUES ($1,
                             CASE WHEN NOT EXISTS (SELECT 1 FROM {schema}.contacts WHERE email = $2)
                                  THEN $2 END,
                             $3, $4)
                     RETURNING id, name, email",
                ))
                .bind(&identity.external_id)
                .bind(email)
                .bind(&identity.name)
                .bind(verified)
                .fetch_one(&mut *conn)
                .await
                .on_constraint("contacts_external_id_key", busy)
                .on_constraint("contacts_email_key", busy)?,
            }
        }
    };
    if let Some(visitor_id) = visitor_id {
        hand_over(conn, schema, visitor_id, contact.id).await?;
    }
    Ok(contact)
}

/// Two sessions for one new identity raced; the loser's client simply tries again.
fn busy() -> Error {
    Error::conflict(
        "identity_busy",
        "this visitor is being set up by another request; try again",
    )
}

/// Moves the anonymous contact's conversations and tickets to `to`.
async fn hand_over(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    visitor_id: Uuid,
    to: Uuid,
) -> Result<()> {
    sqlx::query(schema.sql(
        "WITH anon AS (SELECT id FROM {schema}.contacts
                        WHERE visitor_id = $1 AND external_id IS NULL AND id <> $2),
              moved AS (UPDATE {schema}.conversations SET contact_id = $2, updated_at = now()
                         WHERE contact_id IN (SELECT id FROM anon))
         UPDATE {schema}.tickets SET requester_id = $2, updated_at = now()
          WHERE requester_id IN (SELECT id FROM anon)",
    ))
    .bind(visitor_id)
    .bind(to)
    .execute(conn)
    .await?;
    Ok(())
}

/// The visitor tells us their email or name (`POST /widget/v1/contact`). An email another
/// contact already has is not taken over: it would let a visitor read into that contact's
/// conversations later; it is refused with a 409 instead.
pub async fn update(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    contact_id: Uuid,
    email: Option<&EmailAddress>,
    name: Option<&str>,
) -> Result<Contact> {
    sqlx::query_as(schema.sql(
        "UPDATE {schema}.contacts
            SET email = coalesce($2, email), name = coalesce($3, name), updated_at = now()
          WHERE id = $1
          RETURNING id, name, email",
    ))
    .bind(contact_id)
    .bind(email.map(EmailAddress::as_str))
    .bind(name)
    .fetch_optional(conn)
    .await
    .on_constraint("contacts_email_key", || {
        Error::conflict(
            "email_in_use",
            "this email belongs to another contact of this workspace; we will reply to it by email",
        )
    })?
    .ok_or(Error::NotFound("contact"))
}
