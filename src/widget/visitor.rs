//! Who a visitor request comes from: a verified visitor token of a live workspace, still
//! trusted as far as it was issued.
//!
//! A [`Visitor`] is made only here, from a token `JwtKeys::decode_visitor` accepted, and it
//! opens its workspace's tables only through [`VisitorTx`] and [`Visitor::read`], whose
//! statements are rendered from the token's workspace: a visitor reaches one workspace, and in
//! it the statements of this module's callers reach one contact.
//!
//! A token names its contact, and says how far the identity behind it was vouched for
//! (`VisitorTrust`). A token of a claimed identity (named by the customer's site without a
//! signature, with verification off) is the site's word only, so it is refused from the
//! moment that word is no longer enough: once the contact is verified (someone proved to be
//! that identity, and a claim must not keep reading their conversation), and once the
//! workspace verifies identities (from the moment an Owner turns verification on, even if it is
//! turned off again within the token's hour). Every request and every hub call checks this,
//! and writes check the contact again under its row lock; `crate::chat::lifecycle` closes the
//! hub connections of such tokens on every replica as soon as the change is told.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use sqlx::{PgConnection, Postgres, Transaction};
use supportdesk_core::db::{self, ReadConnection};
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_core::tenancy::migrations::latest_version;
use uuid::Uuid;

use crate::auth::extract::bearer;
use crate::authz::check_workspace;
use crate::conversations::intake::LockedContact;
use crate::credentials::jwt::{TokenError, Trust, VisitorTrust};
use crate::error::{Error, Result};
use crate::hub::registry::VisitorIdentity;
use crate::state::AppState;

#[derive(Debug, Clone)]
pub struct Visitor {
    pub workspace_id: Uuid,
    pub schema: TenantSchema,
    /// The contact the visitor is (one per visitor id, or per identified external id).
    pub contact_id: Uuid,
    pub visitor_id: Uuid,
    /// The token's expiry (Unix seconds): a hub connection closes then.
    pub expires_at: i64,
    /// How far the token vouched for the visitor.
    pub trust: VisitorTrust,
}

/// A live workspace, as visitor tokens are checked against it.
struct Site {
    schema: TenantSchema,
    /// Identities must be signed.
    verifies_identities: bool,
    /// Moved each time verification is turned on.
    identity_epoch: i32,
}

/// What a contact row says about the tokens that name it.
#[derive(Debug, Clone, Copy)]
struct ContactTrust {
    /// It has an external id (anonymous contacts have none).
    identified: bool,
    /// A signed identity has named it.
    verified: bool,
}

/// The live workspace a visitor token names, and what its tokens are checked against.
async fn site(state: &AppState, workspace_id: Uuid) -> Result<Site> {
    let row = sqlx::query!(
        r#"SELECT w.schema_name, w.status, w.schema_version,
                  coalesce(s.identity_verification, false) AS "identity_verification!",
                  coalesce(s.identity_epoch, 0) AS "identity_epoch!"
             FROM public.workspaces w
             LEFT JOIN public.widget_sites s ON s.workspace_id = w.id
            WHERE w.id = $1"#,
        workspace_id,
    )
    .fetch_optional(&state.db)
    .await?
    .ok_or(Error::Unauthorized("this chat is no longer available"))?;
    check_workspace(
        row.status == "active",
        row.schema_version >= latest_version(),
    )?;
    Ok(Site {
        schema: TenantSchema::parse(&row.schema_name)
            .map_err(|e| Error::Internal(anyhow::anyhow!(e)))?,
        verifies_identities: row.identity_verification,
        identity_epoch: row.identity_epoch,
    })
}

/// The workspace a visitor token names, if it is still live.
pub async fn workspace_schema(state: &AppState, workspace_id: Uuid) -> Result<TenantSchema> {
    Ok(site(state, workspace_id).await?.schema)
}

const VERIFIED_SINCE: &str = "this visitor's identity has been verified since this token was issued: start a new session with the identity's hash";
const VERIFICATION_ON: &str =
    "this workspace verifies visitors' identities: start a new session with the identity's hash";
const VERIFICATION_TURNED_ON: &str = "this workspace turned identity verification on since this token was issued: start a new session";

/// Why a token vouching `token` may no longer act for a contact that is `contact` in `site`,
/// if so. Only a claimed identity's token can lose its trust: an anonymous visitor's contact
/// is theirs alone, and a verified token proved what it names.
fn refusal(token: VisitorTrust, contact: ContactTrust, site: &Site) -> Option<&'static str> {
    if token.trust == Trust::Verified || !contact.identified {
        return None;
    }
    if contact.verified {
        Some(VERIFIED_SINCE)
    } else if site.verifies_identities {
        Some(VERIFICATION_ON)
    } else if token.epoch != site.identity_epoch {
        Some(VERIFICATION_TURNED_ON)
    } else {
        None
    }
}

/// The contact's row as [`refusal`] reads it (`None`: no such contact); `FOR UPDATE` when
/// `lock`, so a write and the contact's verification happen one after the other.
async fn contact_trust(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    contact_id: Uuid,
    lock: bool,
) -> Result<Option<ContactTrust>> {
    let statement = if lock {
        "SELECT external_id IS NOT NULL, identity_verified FROM {schema}.contacts
          WHERE id = $1 FOR UPDATE"
    } else {
        "SELECT external_id IS NOT NULL, identity_verified FROM {schema}.contacts WHERE id = $1"
    };
    let row: Option<(bool, bool)> = sqlx::query_as(schema.sql(statement))
        .bind(contact_id)
        .fetch_optional(conn)
        .await?;
    Ok(row.map(|(identified, verified)| ContactTrust {
        identified,
        verified,
    }))
}

const GONE: Error = Error::Unauthorized("this visitor no longer exists; start a new session");

impl Visitor {
    /// The visitor a bearer token names.
    pub async fn authenticate(state: &AppState, token: &str) -> Result<Self> {
        let claims = state.jwt.decode_visitor(token).map_err(|e| match e {
            TokenError::Expired => Error::Unauthorized("the token has expired"),
            TokenError::Invalid => Error::Unauthorized("the token is invalid"),
            TokenError::WrongAudience => Error::forbidden(
                "wrong_token_type",
                "this endpoint takes a widget visitor token (POST /widget/v1/sessions)",
            ),
        })?;
        let identity = VisitorIdentity {
            workspace_id: claims.tid,
            contact_id: claims.sub,
            visitor_id: claims.vid,
            trust: claims.trust,
        };
        Self::checked(state, &identity, claims.exp).await
    }

    /// The visitor holding a hub connection, re-checked for a call: its workspace still live,
    /// its token still trusted.
    pub async fn of_connection(state: &AppState, who: &VisitorIdentity) -> Result<Self> {
        Self::checked(state, who, i64::MAX).await
    }

    async fn checked(state: &AppState, who: &VisitorIdentity, expires_at: i64) -> Result<Self> {
        let site = site(state, who.workspace_id).await?;
        if who.trust.trust == Trust::Claimed {
            let mut conn = state.reads.get(&site.schema).await?;
            let contact = contact_trust(&mut conn, &site.schema, who.contact_id, false)
                .await?
                .ok_or(GONE)?;
            if let Some(refused) = refusal(who.trust, contact, &site) {
                return Err(Error::Unauthorized(refused));
            }
        }
        Ok(Self {
            workspace_id: who.workspace_id,
            schema: site.schema,
            contact_id: who.contact_id,
            visitor_id: who.visitor_id,
            expires_at,
            trust: who.trust,
        })
    }

    /// The hub's view of this visitor.
    pub fn identity(&self) -> VisitorIdentity {
        VisitorIdentity {
            workspace_id: self.workspace_id,
            contact_id: self.contact_id,
            visitor_id: self.visitor_id,
            trust: self.trust,
        }
    }

    /// A pooled connection for one read statement of the visitor's workspace.
    pub async fn read(&self, state: &AppState) -> Result<ReadConnection> {
        Ok(state.reads.get(&self.schema).await?)
    }
}

impl FromRequestParts<AppState> for Visitor {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self> {
        Self::authenticate(state, bearer(&parts.headers)?).await
    }
}

/// A transaction in the visitor's workspace (tenant statements qualified with its schema).
pub struct VisitorTx {
    tx: Transaction<'static, Postgres>,
    schema: TenantSchema,
}

impl VisitorTx {
    pub async fn begin(state: &AppState, schema: &TenantSchema) -> Result<Self> {
        let tx = db::begin(&state.db, None).await?;
        Ok(Self {
            tx,
            schema: schema.clone(),
        })
    }

    pub fn parts(&mut self) -> (&mut PgConnection, &TenantSchema) {
        (&mut self.tx, &self.schema)
    }

    /// Locks the visitor's contact for a write, checking again under the lock that the token
    /// still speaks for it: a verification that committed since the request was authenticated
    /// refuses the write, and one that waits for the lock comes after it.
    pub async fn lock_contact(&mut self, visitor: &Visitor) -> Result<LockedContact> {
        let contact = contact_trust(&mut self.tx, &self.schema, visitor.contact_id, true)
            .await?
            .ok_or(GONE)?;
        if visitor.trust.trust != Trust::Verified && contact.identified && contact.verified {
            return Err(Error::Unauthorized(VERIFIED_SINCE));
        }
        Ok(LockedContact::locked_by_caller(visitor.contact_id))
    }

    pub async fn commit(self) -> Result<()> {
        self.tx.commit().await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(verifies_identities: bool, identity_epoch: i32) -> Site {
        Site {
            schema: TenantSchema::parse("ws_00000000000000000000000000000001").unwrap(),
            verifies_identities,
            identity_epoch,
        }
    }

    fn token(trust: Trust, epoch: i32) -> VisitorTrust {
        VisitorTrust { trust, epoch }
    }

    const UNVERIFIED: ContactTrust = ContactTrust {
        identified: true,
        verified: false,
    };
    const VERIFIED: ContactTrust = ContactTrust {
        identified: true,
        verified: true,
    };
    const ANONYMOUS: ContactTrust = ContactTrust {
        identified: false,
        verified: false,
    };

    #[test]
    fn a_claimed_token_stands_while_its_contact_is_unverified_and_verification_stays_off() {
        assert_eq!(
            refusal(token(Trust::Claimed, 2), UNVERIFIED, &site(false, 2)),
            None
        );
    }

    #[test]
    fn a_claimed_token_falls_once_its_contact_is_verified() {
        assert_eq!(
            refusal(token(Trust::Claimed, 0), VERIFIED, &site(false, 0)),
            Some(VERIFIED_SINCE)
        );
        assert_eq!(
            refusal(token(Trust::Verified, 0), VERIFIED, &site(false, 0)),
            None
        );
    }

    #[test]
    fn turning_verification_on_refuses_claimed_tokens_for_good() {
        assert_eq!(
            refusal(token(Trust::Claimed, 0), UNVERIFIED, &site(true, 1)),
            Some(VERIFICATION_ON)
        );
        // Off again: the tokens issued before it was turned on stay refused.
        assert_eq!(
            refusal(token(Trust::Claimed, 0), UNVERIFIED, &site(false, 1)),
            Some(VERIFICATION_TURNED_ON)
        );
        assert_eq!(
            refusal(token(Trust::Claimed, 1), UNVERIFIED, &site(false, 1)),
            None
        );
        assert_eq!(
            refusal(token(Trust::Verified, 0), VERIFIED, &site(true, 1)),
            None
        );
    }

    #[test]
    fn an_anonymous_contact_is_its_visitors_alone() {
        for trust in [Trust::Anonymous, Trust::Claimed] {
            assert_eq!(refusal(token(trust, 0), ANONYMOUS, &site(true, 4)), None);
        }
    }
}
