//! Creating a workspace: its row, its schema at the latest tenant version, and its owner, all
//! in one transaction, so a failure at any step leaves nothing behind.

use sqlx::{PgConnection, PgPool};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::Error;
use crate::tenancy::TenantSchema;
use crate::tenancy::migrations::{latest_version, provision};
use crate::workspaces::slug::Slug;

#[derive(Debug, Clone)]
pub struct NewWorkspace {
    pub id: Uuid,
    pub name: String,
    pub slug: Slug,
    pub created_at: OffsetDateTime,
}

/// Creates a workspace owned by `owner`. A chosen slug that is taken is a conflict; a slug
/// derived from the name gets a random suffix instead.
pub async fn create_workspace(
    db: &PgPool,
    name: &str,
    slug: Option<Slug>,
    owner: Uuid,
) -> Result<NewWorkspace, Error> {
    let chosen = slug.is_some();
    let mut slug = slug.unwrap_or_else(|| Slug::derive(name));
    for attempt in 0..4 {
        let mut tx = crate::db::begin(db, None).await?;
        match insert(&mut tx, name, &slug, owner).await {
            Ok(workspace) => {
                tx.commit().await?;
                return Ok(workspace);
            }
            Err(Error::Database(err))
                if !chosen
                    && attempt < 3
                    && err.as_database_error().and_then(|e| e.constraint())
                        == Some("workspaces_slug_key") =>
            {
                slug = slug.with_suffix();
            }
            Err(err) => return Err(err),
        }
    }
    Err(Error::conflict(
        "slug_taken",
        "could not find a free slug; choose one",
    ))
}

async fn insert(
    tx: &mut PgConnection,
    name: &str,
    slug: &Slug,
    owner: Uuid,
) -> Result<NewWorkspace, Error> {
    let id = Uuid::now_v7();
    let schema = TenantSchema::for_workspace(id);
    let created_at: OffsetDateTime = sqlx::query_scalar(
        "INSERT INTO public.workspaces (id, name, slug, schema_name, schema_version)
         VALUES ($1, $2, $3, $4, $5)
         RETURNING created_at",
    )
    .bind(id)
    .bind(name)
    .bind(slug.as_str())
    .bind(schema.name())
    .bind(latest_version())
    .fetch_one(&mut *tx)
    .await?;
    provision(&mut *tx, &schema).await?;
    add_profile(&mut *tx, &schema, owner).await?;
    sqlx::query(
        "INSERT INTO public.memberships (workspace_id, user_id, role) VALUES ($1, $2, 'admin')",
    )
    .bind(id)
    .bind(owner)
    .execute(&mut *tx)
    .await?;
    Ok(NewWorkspace {
        id,
        name: name.to_owned(),
        slug: slug.clone(),
        created_at,
    })
}

/// The member's profile in the tenant schema, named after the account until they change it.
pub async fn add_profile(
    tx: &mut PgConnection,
    schema: &TenantSchema,
    user_id: Uuid,
) -> Result<(), Error> {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO {schema}.agent_profiles (user_id, display_name)
         SELECT id, full_name FROM public.users WHERE id = $1
         ON CONFLICT (user_id) DO NOTHING",
        schema = schema.quoted()
    )))
    .bind(user_id)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Drops the data of a workspace marked for deletion: its schema, then its row (memberships
/// and invitations go with it). Safe to repeat; false when there was nothing to drop.
pub async fn drop_workspace(db: &PgPool, workspace_id: Uuid) -> Result<bool, Error> {
    let mut tx = crate::db::begin(db, None).await?;
    let schema: Option<String> = sqlx::query_scalar(
        "SELECT schema_name FROM public.workspaces WHERE id = $1 AND status = 'deleting' FOR UPDATE",
    )
    .bind(workspace_id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(schema) = schema else {
        return Ok(false);
    };
    let schema = TenantSchema::parse(&schema).map_err(|e| anyhow::anyhow!(e))?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(schema.lock_key())
        .execute(&mut *tx)
        .await?;
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "DROP SCHEMA IF EXISTS {} CASCADE",
        schema.quoted()
    )))
    .execute(&mut *tx)
    .await?;
    sqlx::query("DELETE FROM public.workspaces WHERE id = $1")
        .bind(workspace_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(true)
}
