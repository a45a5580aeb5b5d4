//! Creating a workspace: its row, its schema at the latest tenant version, and its owner, all
//! in one transaction, so a failure at any step leaves nothing behind.

use sqlx::{PgConnection, PgPool};
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_core::tenancy::migrations::{latest_version, provision};
use supportdesk_core::tenancy::spares::claim_spare;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::{Error, OnConstraint};

use crate::workspaces::slug::Slug;

#[derive(Debug, Clone)]
pub struct NewWorkspace {
    pub id: Uuid,
    pub name: String,
    pub slug: Slug,
    pub created_at: OffsetDateTime,
}

/// What a person creating a workspace through the API may own. Operators' `tenants create`
/// is not bound by it.
#[derive(Debug, Clone, Copy)]
pub struct OwnershipLimits {
    /// `MAX_WORKSPACES_PER_USER`: workspaces one account may be an Owner of.
    pub max_owned: u32,
}

/// The `code` of the conflict answered when a workspace's slug is taken.
const SLUG_TAKEN: &str = "slug_taken";

/// An account whose email is not verified may own this many workspaces: enough to try the
/// product, too few to farm workspaces (and their invitation emails) from throwaway accounts.
pub const UNVERIFIED_MAX_OWNED: i64 = 1;

/// Creates a workspace owned by `owner`, within `limits` when given. A chosen slug that is
/// taken is a conflict; a slug derived from the name gets a random suffix instead.
pub async fn create_workspace(
    db: &PgPool,
    name: &str,
    slug: Option<Slug>,
    owner: Uuid,
    limits: Option<OwnershipLimits>,
) -> Result<NewWorkspace, Error> {
    let chosen = slug.is_some();
    let mut slug = slug.unwrap_or_else(|| Slug::derive(name));
    for attempt in 0..4 {
        let mut tx = supportdesk_core::db::begin(db, None).await?;
        if let Some(limits) = limits {
            check_ownership(&mut tx, owner, limits).await?;
        }
        match insert(&mut tx, name, &slug, owner).await {
            Ok(workspace) => {
                tx.commit().await?;
                return Ok(workspace);
            }
            Err(Error::Conflict {
                code: SLUG_TAKEN, ..
            }) if !chosen && attempt < 3 => {
                slug = slug.with_suffix();
            }
            Err(err) => return Err(err),
        }
    }
    Err(Error::conflict(
        SLUG_TAKEN,
        "could not find a free slug; choose one",
    ))
}

/// Refuses a new workspace beyond what `owner` may own. The account row is locked until the
/// transaction ends, so concurrent creates by one person are counted one after another.
async fn check_ownership(
    tx: &mut PgConnection,
    owner: Uuid,
    limits: OwnershipLimits,
) -> Result<(), Error> {
    let account = sqlx::query!(
        r#"SELECT u.email_verified,
                  (SELECT count(*) FROM public.memberships m
                     JOIN public.workspaces w ON w.id = m.workspace_id
                    WHERE m.user_id = u.id AND m.role = 'admin' AND w.status = 'active')
                    AS "owned!"
             FROM public.users u WHERE u.id = $1
              FOR UPDATE OF u"#,
        owner,
    )
    .fetch_optional(&mut *tx)
    .await?
    .ok_or(Error::Unauthorized("the account no longer exists"))?;
    let (verified, owned) = (account.email_verified, account.owned);
    if !verified && owned >= UNVERIFIED_MAX_OWNED {
        return Err(Error::forbidden(
            "email_not_verified",
            "verify your email address to create more than one workspace",
        ));
    }
    if owned >= i64::from(limits.max_owned) {
        return Err(Error::forbidden(
            "workspace_limit_reached",
            format!(
                "an account may own at most {} workspaces; delete one or ask your operator",
                limits.max_owned
            ),
        ));
    }
    Ok(())
}

async fn insert(
    tx: &mut PgConnection,
    name: &str,
    slug: &Slug,
    owner: Uuid,
) -> Result<NewWorkspace, Error> {
    let id = Uuid::now_v7();
    let schema = TenantSchema::for_workspace(id);
    let created_at = sqlx::query_scalar!(
        "INSERT INTO public.workspaces (id, name, slug, schema_name, schema_version)
         VALUES ($1, $2, $3, $4, $5)
         RETURNING created_at",
        id,
        name,
        slug.as_str(),
        schema.name(),
        latest_version(),
    )
    .fetch_one(&mut *tx)
    .await
    .on_constraint("workspaces_slug_key", || {
        Error::conflict(SLUG_TAKEN, "a workspace with this slug already exists")
    })?;
    if !claim_spare(&mut *tx, &schema).await? {
        provision(&mut *tx, &schema).await?;
    }
    sqlx::query!(
        "INSERT INTO public.memberships (workspace_id, user_id, role) VALUES ($1, $2, 'admin')",
        id,
        owner,
    )
    .execute(&mut *tx)
    .await?;
    add_profile(&mut *tx, &schema, owner).await?;
    Ok(NewWorkspace {
        id,
        name: name.to_owned(),
        slug: slug.clone(),
        created_at,
    })
}

/// The member's profile in the tenant schema, named after the account until they change it,
/// with a copy of their account and membership (`agents::record::sync_member`). The
/// membership row must exist: call it after inserting or changing one, in that transaction.
pub async fn add_profile(
    tx: &mut PgConnection,
    schema: &TenantSchema,
    user_id: Uuid,
) -> Result<(), Error> {
    crate::agents::record::sync_member(tx, schema, user_id).await?;
    Ok(())
}
