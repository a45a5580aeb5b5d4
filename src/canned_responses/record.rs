//! The CannedResponse record and its queries. Statements over the tables of `schema`.
//!
//! Writes answer a short code that is taken as the conflict it is (`short_code_taken`).

use serde::Serialize;
use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::{Error, OnConstraint, Result};
use crate::extract::Resource;
use crate::pagination::Page;

/// Short codes are unique in a workspace (stored lower case, so in any case).
const SHORT_CODE_UNIQUE: &str = "canned_responses_short_code_key";

fn short_code_taken() -> Error {
    Error::conflict(
        "short_code_taken",
        "a canned response with this short code already exists",
    )
}

#[derive(Debug, Clone, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct CannedResponse {
    pub id: Uuid,
    /// What an agent types to find it, e.g. `refund`; unique in the workspace.
    #[schema(example = "refund")]
    pub short_code: String,
    #[schema(example = "Refund on its way")]
    pub title: String,
    /// May use `{{contact.name}}`, `{{agent.displayName}}` and `{{workspace.name}}`.
    #[schema(example = "Hi {{contact.name}}, your refund is on its way. {{agent.displayName}}")]
    pub body: String,
}

impl Resource for CannedResponse {
    const NAME: &'static str = "canned response";
}

/// A page of the canned responses whose short code or title contains `search` (any case),
/// by short code (unique, so it is the page key), and the next page's cursor. A workspace
/// keeps tens or hundreds of them: the search reads the table, the order its unique index.
pub async fn list(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    search: Option<&str>,
    page: &Page<String>,
) -> sqlx::Result<(Vec<CannedResponse>, Option<String>)> {
    let rows: Vec<CannedResponse> = sqlx::query_as(schema.sql(
        "SELECT id, short_code, title, body FROM {schema}.canned_responses
          WHERE ($1::text IS NULL
                 OR strpos(short_code, lower($1)) > 0
                 OR strpos(lower(title), lower($1)) > 0)
            AND ($2::text IS NULL OR short_code > $2)
          ORDER BY short_code
          LIMIT $3",
    ))
    .bind(search)
    .bind(page.after.as_deref())
    .bind(page.fetch())
    .fetch_all(conn)
    .await?;
    Ok(page.finish(rows, |c| c.short_code.clone()))
}

pub async fn find(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
) -> sqlx::Result<Option<CannedResponse>> {
    sqlx::query_as(
        schema
            .sql("SELECT id, short_code, title, body FROM {schema}.canned_responses WHERE id = $1"),
    )
    .bind(id)
    .fetch_optional(conn)
    .await
}

pub async fn insert(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    short_code: &str,
    title: &str,
    body: &str,
) -> Result<CannedResponse> {
    sqlx::query_as(schema.sql(
        "INSERT INTO {schema}.canned_responses (short_code, title, body) VALUES ($1, $2, $3)
         RETURNING id, short_code, title, body",
    ))
    .bind(short_code)
    .bind(title)
    .bind(body)
    .fetch_one(conn)
    .await
    .on_constraint(SHORT_CODE_UNIQUE, short_code_taken)
}

/// Changes the fields given; `None` when there is no such canned response.
pub async fn update(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
    short_code: Option<&str>,
    title: Option<&str>,
    body: Option<&str>,
) -> Result<Option<CannedResponse>> {
    sqlx::query_as(schema.sql(
        "UPDATE {schema}.canned_responses
            SET short_code = coalesce($2, short_code), title = coalesce($3, title),
                body = coalesce($4, body), updated_at = now()
          WHERE id = $1
         RETURNING id, short_code, title, body",
    ))
    .bind(id)
    .bind(short_code)
    .bind(title)
    .bind(body)
    .fetch_optional(conn)
    .await
    .on_constraint(SHORT_CODE_UNIQUE, short_code_taken)
}

/// False when there was no such canned response.
pub async fn delete(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
) -> sqlx::Result<bool> {
    Ok(
        sqlx::query(schema.sql("DELETE FROM {schema}.canned_responses WHERE id = $1"))
            .bind(id)
            .execute(conn)
            .await?
            .rows_affected()
            == 1,
    )
}
