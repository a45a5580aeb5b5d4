//! Contacts: the people writing in, one per email address in a workspace. A conversation or a
//! ticket names its contact by email; the first mention creates the contact. Chat widget
//! visitors are contacts too, before they give an email (`crate::widget::contacts`).
//!
//! A contact's `email` is an address the workspace established (an agent named it; later the
//! email channel): it is how conversations and tickets find the contact. What a widget visitor
//! typed, or an identity carried (its signature covers the external id only), is their word,
//! `claimedEmail`, kept apart so that agents can tell the two and nothing is filed under a
//! claim.

use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::email_address::EmailAddress;
use crate::error::FieldChecks;
use crate::inbox::display_name;
use crate::labels::LabelRef;

pub const NAME_MAX_CHARS: usize = 200;

#[derive(Debug, Clone, Deserialize, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct Contact {
    pub id: Uuid,
    pub name: Option<String>,
    pub email: Option<String>,
    pub claimed_email: Option<String>,
    /// The customer's own id for a visitor their site identified.
    #[serde(default)]
    pub external_id: Option<String>,
    /// Its labels, where the contact is read whole (the contacts API, its events); `None`
    /// where a conversation or a ticket carries its contact.
    #[serde(default)]
    #[sqlx(skip)]
    pub labels: Option<Vec<LabelRef>>,
}

impl Contact {
    /// How agents see the contact: their name, else an address, else a stable friendly name
    /// ("Teal Otter") made from the id, so an anonymous visitor is still someone to talk to.
    pub fn display_name(&self) -> String {
        self.name
            .as_deref()
            .or(self.email.as_deref())
            .or(self.claimed_email.as_deref())
            .map_or_else(|| display_name::friendly(self.id), str::to_owned)
    }
}

/// A contact as the API shows it: [`Contact`] with its `displayName`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Contact)]
struct ContactView<'a> {
    id: Uuid,
    /// Null until someone tells us.
    name: Option<&'a str>,
    /// The name, else an address, else a friendly name made from the id ("Teal Otter"):
    /// never empty, the same every time for the same contact.
    #[schema(example = "Teal Otter")]
    display_name: String,
    /// An address the workspace established (an agent gave it): conversations and tickets
    /// find the contact by it. Null for a chat widget visitor until then.
    email: Option<&'a str>,
    /// The address a chat widget visitor typed, or their identity carried: their word,
    /// unverified. It never finds this contact, and is no address to file anything under.
    /// Null when none was given.
    claimed_email: Option<&'a str>,
    /// The customer's own id for a visitor their site identified; null otherwise.
    external_id: Option<&'a str>,
    /// Its labels, by name: present where the contact is read on its own (the contacts API
    /// and its `contact.*` events), absent where a conversation or a ticket carries it.
    #[serde(skip_serializing_if = "Option::is_none")]
    labels: Option<&'a [LabelRef]>,
}

impl Serialize for Contact {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ContactView {
            id: self.id,
            name: self.name.as_deref(),
            display_name: self.display_name(),
            email: self.email.as_deref(),
            claimed_email: self.claimed_email.as_deref(),
            external_id: self.external_id.as_deref(),
            labels: self.labels.as_deref(),
        }
        .serialize(serializer)
    }
}

impl utoipa::PartialSchema for Contact {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        <ContactView<'static> as utoipa::PartialSchema>::schema()
    }
}

impl ToSchema for Contact {
    fn name() -> std::borrow::Cow<'static, str> {
        <ContactView<'static> as ToSchema>::name()
    }

    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        <ContactView<'static> as ToSchema>::schemas(schemas);
    }
}

/// A contact as a request names it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ContactInput {
    #[schema(example = "carla@example.org")]
    email: String,
    #[schema(example = "Carla Diaz")]
    name: Option<String>,
}

/// A checked [`ContactInput`].
#[derive(Debug)]
pub struct NewContact {
    email: EmailAddress,
    name: Option<String>,
}

impl NewContact {
    /// A sender as a channel knows them (an email's `From`): the name cut to the longest
    /// allowed, dropped when blank.
    pub fn from_sender(email: EmailAddress, name: Option<&str>) -> Self {
        let name = name
            .map(|n| n.trim().chars().take(NAME_MAX_CHARS).collect::<String>())
            .filter(|n| !n.is_empty());
        Self { email, name }
    }
}

impl ContactInput {
    /// Checks the input; problems go to `checks` under `field.email` and `field.name`.
    pub fn check(self, field: Field, checks: &mut FieldChecks) -> Option<NewContact> {
        let email = checks.check(field.email, EmailAddress::parse(&self.email));
        let name = self
            .name
            .map(|name| name.trim().to_owned())
            .filter(|name| !name.is_empty());
        if name
            .as_ref()
            .is_some_and(|name| name.chars().count() > NAME_MAX_CHARS)
        {
            checks.add(
                field.name,
                format!("must be at most {NAME_MAX_CHARS} characters"),
            );
            return None;
        }
        Some(NewContact {
            email: email?,
            name,
        })
    }
}

/// The field names a contact's errors are reported under (`contact.email`, `requester.email`).
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub email: &'static str,
    pub name: &'static str,
}

/// What [`upsert`] found or made.
#[derive(Debug)]
pub struct Upserted {
    pub contact: Contact,
    /// The contact is new.
    pub created: bool,
    /// An existing contact without a name got this one.
    pub named: bool,
}

/// The contact with this email, created if new. A name fills in one we did not know; it does
/// not overwrite one we did (a contact's name is theirs, not the last agent's spelling).
pub async fn upsert(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    contact: &NewContact,
) -> sqlx::Result<Upserted> {
    upsert_by(conn, schema, contact, "email", "").await
}

/// The contact of a sender whose `From` could not be trusted (their mail failed DMARC): known
/// only by the address it claimed, apart from the contact established for that address,
/// created if new.
pub async fn upsert_unverified_sender(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    contact: &NewContact,
) -> sqlx::Result<Upserted> {
    upsert_by(
        conn,
        schema,
        contact,
        "claimed_email",
        " AND email IS NULL AND visitor_id IS NULL AND external_id IS NULL",
    )
    .await
}

/// The contact whose `column` is the address (among the rows `only` narrows to, which must be
/// the predicate of the unique index the conflict names), created if new, named if unnamed.
///
/// Found and locked first, then named or created, so that whether this call created or named
/// it is known exactly. (One upsert cannot tell the second, as `RETURNING` shows the row as
/// written, and Citus refuses the subqueries and the `now()` in `DO UPDATE` it would need.) A
/// create that loses a race to another finds the winner's row on the next turn.
async fn upsert_by(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    contact: &NewContact,
    column: &str,
    only: &str,
) -> sqlx::Result<Upserted> {
    let conflict_where = only
        .strip_prefix(" AND ")
        .map(|p| format!(" WHERE {p}"))
        .unwrap_or_default();
    const COLUMNS: &str = "id, name, email, claimed_email, external_id";
    // A conflict means the row exists (committed): the next turn finds it. Bounded all the
    // same, against a row deleted between every two turns.
    for _ in 0..3 {
        let known: Option<Contact> = sqlx::query_as(schema.sql(&format!(
            "SELECT {COLUMNS} FROM {{schema}}.contacts WHERE {column} = $1{only} FOR UPDATE"
        )))
        .bind(contact.email.as_str())
        .fetch_optional(&mut *conn)
        .await?;
        if let Some(known) = known {
            let Some(name) = contact.name.as_deref().filter(|_| known.name.is_none()) else {
                return Ok(Upserted {
                    contact: known,
                    created: false,
                    named: false,
                });
            };
            let named: Contact = sqlx::query_as(schema.sql(&format!(
                "UPDATE {{schema}}.contacts SET name = $2, updated_at = now() WHERE id = $1
                 RETURNING {COLUMNS}"
            )))
            .bind(known.id)
            .bind(name)
            .fetch_one(&mut *conn)
            .await?;
            return Ok(Upserted {
                contact: named,
                created: false,
                named: true,
            });
        }
        let created: Option<Contact> = sqlx::query_as(schema.sql(&format!(
            "INSERT INTO {{schema}}.contacts ({column}, name) VALUES ($1, $2)
             ON CONFLICT ({column}){conflict_where} DO NOTHING
             RETURNING {COLUMNS}"
        )))
        .bind(contact.email.as_str())
        .bind(&contact.name)
        .fetch_optional(&mut *conn)
        .await?;
        if let Some(created) = created {
            return Ok(Upserted {
                contact: created,
                created: true,
                named: false,
            });
        }
    }
    Err(sqlx::Error::RowNotFound)
}
