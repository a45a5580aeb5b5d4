//! The contact panel's record: the contact, and their visit as the widget reported it.

use serde::Serialize;
use sqlx::postgres::PgRow;
use sqlx::types::Json;
use sqlx::{FromRow, PgConnection, QueryBuilder, Row};
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::extract::Resource;
use crate::inbox::contacts::Contact;
use crate::inbox::text::contains_pattern;
use crate::labels::LabelRef;
use crate::pagination::{Page, TimeKey};

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
        let mut contact = Contact::from_row(row)?;
        contact.labels = Some(row.try_get::<Json<Vec<LabelRef>>, _>("labels")?.0);
        Ok(Self {
            contact,
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

/// The columns of [`ContactDetails`], from `{schema}.contacts` (not aliased: `RETURNING`
/// takes them too).
pub const COLUMNS: &str = "id, name, email, claimed_email, external_id, created_at,
                           last_page_url, last_page_title, referrer, user_agent, time_zone,
                           locale, last_seen_at,
                           (SELECT coalesce(jsonb_agg(
                                       jsonb_build_object('id', l.id, 'name', l.name,
                                                          'color', l.color)
                                       ORDER BY lower(l.name), l.id), '[]'::jsonb)
                              FROM {schema}.contact_labels cl
                              JOIN {schema}.labels l ON l.id = cl.label_id
                             WHERE cl.contact_id = contacts.id) AS labels";

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

/// A page of contacts, newest first: those whose name or address holds `words` (in any
/// case; the trigram index of `V15` finds them), those with `label`.
pub async fn list(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    words: Option<&str>,
    label: Option<Uuid>,
    page: &Page<TimeKey>,
) -> sqlx::Result<(Vec<ContactDetails>, Option<String>)> {
    let mut query = QueryBuilder::new("");
    let sqlx::AssertSqlSafe(select) = schema.sql(&format!(
        "SELECT {COLUMNS} FROM {{schema}}.contacts WHERE true"
    ));
    query.push(select);
    if let Some(words) = words {
        let pattern = contains_pattern(words);
        query
            .push(" AND ((coalesce(name, '') || ' ' || email) ILIKE ")
            .push_bind(pattern.clone())
            .push(" OR name ILIKE ")
            .push_bind(pattern)
            .push(")");
    }
    if let Some(label) = label {
        let sqlx::AssertSqlSafe(labelled) = schema.sql(
            " AND EXISTS (SELECT 1 FROM {schema}.contact_labels fl
                           WHERE fl.contact_id = contacts.id AND fl.label_id = ",
        );
        query.push(labelled).push_bind(label).push(")");
    }
    if let Some(TimeKey(at, id)) = page.after {
        query
            .push(" AND (created_at, id) < (")
            .push_bind(at)
            .push(", ")
            .push_bind(id)
            .push(")");
    }
    query
        .push(" ORDER BY created_at DESC, id DESC LIMIT ")
        .push_bind(page.fetch());
    let rows = query.build_query_as().fetch_all(conn).await?;
    Ok(page.finish(rows, |c: &ContactDetails| {
        TimeKey(c.created_at, c.contact.id)
    }))
}
