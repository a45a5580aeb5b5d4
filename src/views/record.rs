//! The `saved_views` table of `schema`, and the views' counts.

use sqlx::types::Json;
use sqlx::{PgConnection, QueryBuilder};
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::conversations::filters::InboxFilters;
use crate::conversations::record::ListFilter;
use crate::error::{Error, Result};

/// Views an agent keeps, and shared views a workspace keeps, at most each.
pub const PER_OWNER_MAX: i64 = 50;
/// A view's count stops here: the sidebar shows "1000+", and counting stays bounded.
pub const COUNT_MAX: i64 = 1000;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ViewRow {
    pub id: Uuid,
    /// `None`: shared with the workspace.
    pub owner_id: Option<Uuid>,
    pub name: String,
    pub filters: Json<InboxFilters>,
    pub position: i32,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

const COLUMNS: &str = "id, owner_id, name, filters, position, created_at, updated_at";

/// The shared views, then `me`'s own, each in their order.
pub async fn list(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    me: Uuid,
) -> sqlx::Result<Vec<ViewRow>> {
    sqlx::query_as(schema.sql(&format!(
        "SELECT {COLUMNS} FROM {{schema}}.saved_views
          WHERE owner_id IS NULL OR owner_id = $1
          ORDER BY owner_id IS NOT NULL, position, id"
    )))
    .bind(me)
    .fetch_all(conn)
    .await
}

/// The view `id` if `me` sees it (shared, or theirs), locked for a change.
pub async fn find_for_update(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
    me: Uuid,
) -> sqlx::Result<Option<ViewRow>> {
    sqlx::query_as(schema.sql(&format!(
        "SELECT {COLUMNS} FROM {{schema}}.saved_views
          WHERE id = $1 AND (owner_id IS NULL OR owner_id = $2)
            FOR UPDATE"
    )))
    .bind(id)
    .bind(me)
    .fetch_optional(conn)
    .await
}

/// A new view, last of its owner's list (`None`: the shared list).
pub async fn insert(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    owner_id: Option<Uuid>,
    name: &str,
    filters: &InboxFilters,
) -> Result<ViewRow> {
    let (count, next): (i64, i32) = sqlx::query_as(schema.sql(
        "SELECT count(*), coalesce(max(position) + 1, 0) FROM {schema}.saved_views
          WHERE owner_id IS NOT DISTINCT FROM $1",
    ))
    .bind(owner_id)
    .fetch_one(&mut *conn)
    .await?;
    if count >= PER_OWNER_MAX {
        return Err(Error::conflict(
            "view_limit",
            format!("at most {PER_OWNER_MAX} views in a list; delete one first"),
        ));
    }
    Ok(sqlx::query_as(schema.sql(&format!(
        "INSERT INTO {{schema}}.saved_views (owner_id, name, filters, position)
         VALUES ($1, $2, $3, $4) RETURNING {COLUMNS}"
    )))
    .bind(owner_id)
    .bind(name)
    .bind(Json(filters))
    .bind(next)
    .fetch_one(conn)
    .await?)
}

pub async fn update(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    view: &ViewRow,
) -> sqlx::Result<ViewRow> {
    sqlx::query_as(schema.sql(&format!(
        "UPDATE {{schema}}.saved_views
            SET owner_id = $2, name = $3, filters = $4, position = $5, updated_at = now()
          WHERE id = $1
         RETURNING {COLUMNS}"
    )))
    .bind(view.id)
    .bind(view.owner_id)
    .bind(&view.name)
    .bind(&view.filters)
    .bind(view.position)
    .fetch_one(conn)
    .await
}

pub async fn delete(conn: &mut PgConnection, schema: &TenantSchema, id: Uuid) -> sqlx::Result<()> {
    sqlx::query(schema.sql("DELETE FROM {schema}.saved_views WHERE id = $1"))
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

/// How many conversations each filter selects for the reader `user_id`, each at most
/// [`COUNT_MAX`]: one statement, one bounded subquery per view.
pub async fn counts(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    user_id: Uuid,
    filters: &[ListFilter],
) -> sqlx::Result<Vec<i64>> {
    if filters.is_empty() {
        return Ok(Vec::new());
    }
    let mut builder = QueryBuilder::new("SELECT ARRAY[");
    for (i, filter) in filters.iter().enumerate() {
        if i > 0 {
            builder.push(", ");
        }
        let sqlx::AssertSqlSafe(from) = schema.sql(
            "(SELECT count(*) FROM (SELECT 1 FROM {schema}.conversations c
                LEFT JOIN {schema}.agent_profiles r ON r.user_id = ",
        );
        builder.push(from).push_bind(user_id).push(" WHERE true");
        filter.push_conditions(&mut builder, schema);
        builder
            .push(" LIMIT ")
            .push_bind(COUNT_MAX)
            .push(") counted)");
    }
    builder.push("]::bigint[]");
    builder.build_query_scalar().fetch_one(conn).await
}

/// Whether the label and the agent a filter names are the workspace's: a view that names
/// what is not there would count nothing, forever.
pub async fn names_known(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    label: Option<Uuid>,
    agent: Option<Uuid>,
) -> sqlx::Result<(bool, bool)> {
    sqlx::query_as(schema.sql(
        "SELECT $1::uuid IS NULL OR EXISTS (SELECT 1 FROM {schema}.labels WHERE id = $1),
                $2::uuid IS NULL OR EXISTS (SELECT 1 FROM {schema}.agent_profiles WHERE id = $2)",
    ))
    .bind(label)
    .bind(agent)
    .fetch_one(conn)
    .await
}
