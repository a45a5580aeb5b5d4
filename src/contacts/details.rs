//! The contact panel's record: the contact, and their visit as the widget reported it.

use serde::Serialize;
use sqlx::postgres::PgRow;
use sqlx::{FromRow, PgConnection, Row};
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::extract::Resource;
use crate::inbox::contacts::Contact;

/// What the chat widget last reported of the visitor's browser and page.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VisitorContext {
    /// The page they are on (or were on last).
    pub page_url: Option<String>,
    pub page_title: Option<String>,
    /// Where they came from on their first visit.
    pub referrer: Option<String>,
    /// Their browser's user agent.
    pub user_agent: Option<String>,
    /// Their IANA time zone, e.g. `Europe/Lisbon`.
    #[schema(example = "Europe/Lisbon")]
    pub time_zone: Option<String>,
    /// Their browser's language, e.g. `pt-PT`.
    pub locale: Option<String>,
    /// When the widget last reported.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub last_seen_at: OffsetDateTime,
}

/// A contact as the contact panel shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContactDetails {
    #[serde(flatten)]
    pub contact: Contact,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    /// Null until the chat widget reported a visit.
    pub visitor: Option<VisitorContext>,
}

impl Resource for ContactDetails {
    const NAME: &'static str = "contact";
}

impl FromRow<'_, PgRow> for ContactDetails {
    fn from_row(row: &PgRow) -> sqlx::Result<Self> {
        let last_seen_at: Option<OffsetDateTime> = row.try_get("last_seen_at")?;
        Ok(Self {
            contact: Contact::from_row(row)?,
            created_at: row.try_get("created_at")?,
            visitor: match last_seen_at {
                Some(last_seen_at) => Some(VisitorContext {
                    page_url: row.try_get("last_page_url")?,
                    page_title: row.try_get("last_page_title")?,
                    referrer: row.try_get("referrer")?,
                    user_agent: row.try_get("user_agent")?,
                    time_zone: row.try_get("time_zone")?,
                    locale: row.try_get("locale")?,
                    last_seen_at,
                }),
                None => None,
            },
        })
    }
}

/// The columns of [`ContactDetails`].
pub const COLUMNS: &str = "id, name, email, claimed_email, external_id, created_at,
                           last_page_url, last_page_title, referrer, user_agent, time_zone,
                           locale, last_seen_at";

pub async fn find(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
) -> sqlx::Result<Option<ContactDetails>> {
    sqlx::query_as(schema.sql(&format!(
        "SELECT {COLUMNS} FROM {{schema}}.contacts WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(conn)
    .await
}
