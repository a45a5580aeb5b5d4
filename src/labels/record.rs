//! The Label record and its queries, and the set of labels on a conversation, over the tables
//! of `schema`. A name that is taken, in any case, is the conflict it is (`label_name_taken`).

use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::{Error, OnConstraint, Result};
use crate::extract::Resource;

const NAME_UNIQUE: &str = "labels_name_key";
/// Labels a workspace may keep: a set people choose from, not a free-form tag cloud.
pub const PER_WORKSPACE_MAX: i64 = 500;

fn name_taken() -> Error {
    Error::conflict("label_name_taken", "a label with this name already exists")
}

#[derive(Debug, Clone, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct Label {
    pub id: Uuid,
    pub name: String,
    /// `#rrggbb`.
    pub color: String,
    pub description: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

impl Resource for Label {
    const NAME: &'static str = "label";
}

/// A label as a conversation carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LabelRef {
    pub id: Uuid,
    pub name: String,
    /// `#rrggbb`.
    pub color: String,
}

const COLUMNS: &str = "id, name, color, description, created_at, updated_at";

/// Every label of the workspace, by name.
pub async fn list(conn: &mut PgConnection, schema: &TenantSchema) -> sqlx::Result<Vec<Label>> {
    sqlx::query_as(schema.sql(&format!(
        "SELECT {COLUMNS} FROM {{schema}}.labels ORDER BY lower(name), id"
    )))
    .fetch_all(conn)
    .await
}

pub async fn insert(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    name: &str,
    color: &str,
    description: Option<&str>,
) -> Result<Label> {
    // A guard against runaway scripts, not an exact quota: two creators at once may each
    // pass it by one.
    let count: i64 = sqlx::query_scalar(schema.sql("SELECT count(*) FROM {schema}.labels"))
        .fetch_one(&mut *conn)
        .await?;
    if count >= PER_WORKSPACE_MAX {
        return Err(Error::conflict(
            "label_limit",
            format!("a workspace keeps at most {PER_WORKSPACE_MAX} labels; delete one first"),
        ));
    }
    sqlx::query_as(schema.sql(&format!(
        "INSERT INTO {{schema}}.labels (name, color, description) VALUES ($1, $2, $3)
         RETURNING {COLUMNS}"
    )))
    .bind(name)
    .bind(color)
    .bind(description)
    .fetch_one(conn)
    .await
    .on_constraint(NAME_UNIQUE, name_taken)
}

/// Changes the fields given; `None` when there is no such label.
pub async fn update(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
    name: Option<&str>,
    color: Option<&str>,
    description: Option<Option<&str>>,
) -> Result<Option<Label>> {
    sqlx::query_as(schema.sql(&format!(
        "UPDATE {{schema}}.labels
            SET name = coalesce($2, name), color = coalesce($3, color),
                description = CASE WHEN $4 THEN $5 ELSE description END, updated_at = now()
          WHERE id = $1
         RETURNING {COLUMNS}"
    )))
    .bind(id)
    .bind(name)
    .bind(color)
    .bind(description.is_some())
    .bind(description.flatten())
    .fetch_optional(conn)
    .await
    .on_constraint(NAME_UNIQUE, name_taken)
}

/// False when there was no such label. Its conversations lose it (the foreign key cascades).
pub async fn delete(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
) -> sqlx::Result<bool> {
    Ok(
        sqlx::query(schema.sql("DELETE FROM {schema}.labels WHERE id = $1"))
            .bind(id)
            .execute(conn)
            .await?
            .rows_affected()
            == 1,
    )
}

/// What carries labels: the table of its rows, and that of its labels.
#[derive(Debug, Clone, Copy)]
pub enum Labelled {
    Conversation,
    Contact,
}

impl Labelled {
    /// (its table, the labels' table, the labels' column naming it)
    fn tables(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Self::Conversation => ("conversations", "conversation_labels", "conversation_id"),
            Self::Contact => ("contacts", "contact_labels", "contact_id"),
        }
    }
}

/// Replaces the labels of the conversation or contact `id` with `label_ids` (each a label
/// of the workspace: else a 400 naming `labelIds`). `false` when there is no such row.
///
/// The row itself is written first (`updated_at`), so two agents setting labels at once take
/// turns, and each one's event carries the set it left.
pub async fn set_labels(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    on: Labelled,
    id: Uuid,
    label_ids: &[Uuid],
) -> Result<bool> {
    let (table, labels, column) = on.tables();
    let touched = sqlx::query(schema.sql(&format!(
        "UPDATE {{schema}}.{table} SET updated_at = now() WHERE id = $1"
    )))
    .bind(id)
    .execute(&mut *conn)
    .await?;
    if touched.rows_affected() == 0 {
        return Ok(false);
    }
    // Locked against a delete until the insert below: a label deleted meanwhile is refused
    // here, not a foreign-key error there.
    let known: i64 = sqlx::query_scalar(schema.sql(
        "SELECT count(*) FROM (SELECT FROM {schema}.labels WHERE id = ANY($1) FOR KEY SHARE) l",
    ))
    .bind(label_ids)
    .fetch_one(&mut *conn)
    .await?;
    if usize::try_from(known).ok() != Some(label_ids.len()) {
        return Err(Error::invalid_field(
            "labelIds",
            "names a label this workspace does not have",
        ));
    }
    sqlx::query(schema.sql(&format!(
        "DELETE FROM {{schema}}.{labels} WHERE {column} = $1 AND label_id <> ALL($2)"
    )))
    .bind(id)
    .bind(label_ids)
    .execute(&mut *conn)
    .await?;
    sqlx::query(schema.sql(&format!(
        "INSERT INTO {{schema}}.{labels} ({column}, label_id)
         SELECT $1, l FROM unnest($2::uuid[]) AS l
         ON CONFLICT DO NOTHING"
    )))
    .bind(id)
    .bind(label_ids)
    .execute(conn)
    .await?;
    Ok(true)
}
