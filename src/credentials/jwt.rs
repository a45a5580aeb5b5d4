//! JSON Web Tokens: HS256 only, issuer and audience checked, and a `kind` claim so a user
//! token can never pass where a workspace token is required, nor the reverse.
//!
//! Widget visitors get tokens of their own audience (`supportdesk-widget`): the decoder every
//! `/api` and `/auth` route uses accepts only the API's audience, so no route written for
//! people can take a visitor's token by mistake; only [`JwtKeys::decode_visitor`] does. A
//! visitor token also says how far its identity was vouched for ([`VisitorTrust`]), which
//! every use checks against the contact and the workspace as they are then
//! (`crate::widget::visitor`).

use std::sync::Arc;
use std::time::Duration;

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use supportdesk_core::config::SigningSecret;
// From its home, not through `authz`: `authz` depends on `auth`, not the reverse.
use supportdesk_core::role::Role;

/// Both token kinds live one hour (the spec's lifetime).
pub const TOKEN_LIFETIME: Duration = Duration::from_secs(3600);
const ISSUER: &str = "supportdesk";
const AUDIENCE: &str = "supportdesk-api";
const VISITOR_AUDIENCE: &str = "supportdesk-widget";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TokenKind {
    /// Identifies a person; no access to workspace data.
    User,
    /// Scoped to one workspace (tenant) with a role.
    Workspace,
    /// A chat widget visitor: one workspace, one contact; `/widget/v1` and the hub only.
    Visitor,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    pub iss: String,
    pub aud: String,
    pub sub: Uuid,
    pub iat: i64,
    pub exp: i64,
    pub jti: Uuid,
    pub kind: TokenKind,
    /// Tenant (workspace) id; workspace tokens only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tid: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    /// The account's token version when the token was issued; a password reset bumps the
    /// account's, which refuses every token issued before it.
    #[serde(default)]
    pub ver: i32,
}

/// How far a visitor's identity was vouched for when their token was issued.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Trust {
    /// No identity: the anonymous visitor's own contact.
    Anonymous,
    /// An identity the customer's site named without a valid signature (verification off):
    /// its word only. The default, so a token that predates the claim counts as no more.
    #[default]
    Claimed,
    /// An identity signed with the workspace's identity secret.
    Verified,
}

/// What a visitor token was issued on, checked on every use: a [`Trust::Claimed`] token is
/// refused once its contact is verified, and while the workspace verifies identities or after
/// it turned verification on (its `epoch` moved on).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct VisitorTrust {
    #[serde(default)]
    pub trust: Trust,
    /// The workspace's identity epoch when the token was issued.
    #[serde(default)]
    pub epoch: i32,
}

/// A visitor token's claims.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VisitorClaims {
    pub iss: String,
    pub aud: String,
    /// The contact the visitor is.
    pub sub: Uuid,
    /// The workspace (tenant). Defaults only so that another kind of ours still reaches the
    /// audience check (and is told it is the wrong kind); `kind` is checked after it.
    #[serde(default)]
    pub tid: Uuid,
    /// The visitor id the browser keeps.
    #[serde(default)]
    pub vid: Uuid,
    pub iat: i64,
    pub exp: i64,
    pub jti: Uuid,
    pub kind: TokenKind,
    /// `trust` and `epoch`: how far the identity was vouched for.
    #[serde(flatten)]
    pub trust: VisitorTrust,
}

pub struct IssuedToken {
    pub token: String,
    pub expires_at: OffsetDateTime,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("the token has expired")]
    Expired,
    #[error("the token is invalid")]
    Invalid,
    /// Ours, but issued for the other audience (a visitor token on an API route, or the
    /// reverse).
    #[error("the token is not accepted here")]
    WrongAudience,
}

#[derive(Clone)]
pub struct JwtKeys(Arc<Keys>);

struct Keys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    visitor_validation: Validation,
}

impl JwtKeys {
    pub fn new(secret: &SigningSecret) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.algorithms = vec![Algorithm::HS256];
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[AUDIENCE]);
        validation.set_required_spec_claims(&["exp", "iat", "iss", "aud", "sub"]);
        validation.leeway = 0;
        let mut visitor_validation = validation.clone();
        visitor_validation.set_audience(&[VISITOR_AUDIENCE]);
        Self(Arc::new(Keys {
            encoding: EncodingKey::from_secret(secret.expose()),
            decoding: DecodingKey::from_secret(secret.expose()),
            validation,
            visitor_validation,
        }))
    }

    pub fn issue_user(&self, user_id: Uuid, version: i32) -> anyhow::Result<IssuedToken> {
        self.issue(user_id, TokenKind::User, None, None, version)
    }

    pub fn issue_workspace(
        &self,
        user_id: Uuid,
        workspace_id: Uuid,
        role: Role,
        version: i32,
    ) -> anyhow::Result<IssuedToken> {
        self.issue(
            user_id,
            TokenKind::Workspace,
            Some(workspace_id),
            Some(role),
            version,
        )
    }

    /// A widget visitor's token: contact `contact_id` of workspace `workspace_id`, vouched for
    /// as far as `trust` says.
    pub fn issue_visitor(
        &self,
        workspace_id: Uuid,
        contact_id: Uuid,
        visitor_id: Uuid,
        trust: VisitorTrust,
    ) -> anyhow::Result<IssuedToken> {
        let now = OffsetDateTime::now_utc().replace_nanosecond(0)?;
        let expires_at = now + TOKEN_LIFETIME;
        let claims = VisitorClaims {
            iss: ISSUER.into(),
            aud: VISITOR_AUDIENCE.into(),
            sub: contact_id,
            tid: workspace_id,
            vid: visitor_id,
            iat: now.unix_timestamp(),
            exp: expires_at.unix_timestamp(),
            jti: Uuid::new_v4(),
            kind: TokenKind::Visitor,
            trust,
        };
        let token =
            jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.0.encoding)?;
        Ok(IssuedToken { token, expires_at })
    }

    /// Verifies a visitor token as [`Self::decode`] does an API token.
    pub fn decode_visitor(&self, token: &str) -> Result<VisitorClaims, TokenError> {
        let claims = jsonwebtoken::decode::<VisitorClaims>(
            token,
            &self.0.decoding,
            &self.0.visitor_validation,
        )
        .map_err(|e| self.audience_error(e, token, &self.0.validation))?
        .claims;
        if claims.kind == TokenKind::Visitor {
            Ok(claims)
        } else {
            Err(TokenError::Invalid)
        }
    }

    fn issue(
        &self,
        user_id: Uuid,
        kind: TokenKind,
        tid: Option<Uuid>,
        role: Option<Role>,
        ver: i32,
    ) -> anyhow::Result<IssuedToken> {
        let now = OffsetDateTime::now_utc().replace_nanosecond(0)?;
        let expires_at = now + TOKEN_LIFETIME;
        let claims = Claims {
            iss: ISSUER.into(),
            aud: AUDIENCE.into(),
            sub: user_id,
            iat: now.unix_timestamp(),
            exp: expires_at.unix_timestamp(),
            jti: Uuid::new_v4(),
            kind,
            tid,
            role,
            ver,
        };
        let token =
            jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.0.encoding)?;
        Ok(IssuedToken { token, expires_at })
    }

    /// Verifies signature, algorithm, issuer, audience and expiry, and that the claims are
    /// coherent for their kind.
    pub fn decode(&self, token: &str) -> Result<Claims, TokenError> {
        let claims = jsonwebtoken::decode::<Claims>(token, &self.0.decoding, &self.0.validation)
            .map_err(|e| self.audience_error(e, token, &self.0.visitor_validation))?
            .claims;
        let coherent = match claims.kind {
            TokenKind::User => claims.tid.is_none() && claims.role.is_none(),
            TokenKind::Workspace => claims.tid.is_some() && claims.role.is_some(),
            TokenKind::Visitor => false,
        };
        if coherent {
            Ok(claims)
        } else {
            Err(TokenError::Invalid)
        }
    }
}

impl JwtKeys {
    /// A token of the other audience (`other`), valid there, is ours used in the wrong
    /// place; any other audience is simply invalid.
    fn audience_error(
        &self,
        error: jsonwebtoken::errors::Error,
        token: &str,
        other: &Validation,
    ) -> TokenError {
        use jsonwebtoken::errors::ErrorKind;
        match error.kind() {
            ErrorKind::ExpiredSignature => TokenError::Expired,
            ErrorKind::InvalidAudience => {
                match jsonwebtoken::decode::<serde_json::Value>(token, &self.0.decoding, other) {
                    Ok(_) => TokenError::WrongAudience,
                    Err(e) if matches!(e.kind(), ErrorKind::ExpiredSignature) => {
                        TokenError::Expired
                    }
                    Err(_) => TokenError::Invalid,
                }
            }
            _ => TokenError::Invalid,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    fn keys(secret: &str) -> JwtKeys {
        JwtKeys::new(&SigningSecret::parse(secret.into()).unwrap())
    }

    const SECRET: &str = "an-adequately-long-test-secret-0123456789";

    #[test]
    fn user_token_round_trips_with_one_hour_lifetime() {
        let keys = keys(SECRET);
        let user = Uuid::new_v4();
        let issued = keys.issue_user(user, 0).unwrap();
        let claims = keys.decode(&issued.token).unwrap();
        assert_eq!(claims.sub, user);
        assert_eq!(claims.kind, TokenKind::User);
        assert_eq!(claims.exp - claims.iat, 3600);
        assert!(claims.tid.is_none());
    }

    #[test]
    fn workspace_token_carries_tenant_and_role() {
        let keys = keys(SECRET);
        let (user, ws) = (Uuid::new_v4(), Uuid::new_v4());
        let issued = keys.issue_workspace(user, ws, Role::Agent, 0).unwrap();
        let claims = keys.decode(&issued.token).unwrap();
        assert_eq!(claims.kind, TokenKind::Workspace);
        assert_eq!(claims.tid, Some(ws));
        assert_eq!(claims.role, Some(Role::Agent));
    }

    #[test]
    fn visitor_and_api_tokens_never_pass_for_each_other() {
        let keys = keys(SECRET);
        let (ws, contact, visitor) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let trust = VisitorTrust {
            trust: Trust::Verified,
            epoch: 3,
        };
        let issued = keys.issue_visitor(ws, contact, visitor, trust).unwrap();
        let claims = keys.decode_visitor(&issued.token).unwrap();
        assert_eq!((claims.tid, claims.sub, claims.vid), (ws, contact, visitor));
        assert_eq!(claims.trust, trust);
        assert_eq!(claims.exp - claims.iat, 3600);
        assert_eq!(
            keys.decode(&issued.token).unwrap_err(),
            TokenError::WrongAudience
        );
        let workspace = keys.issue_workspace(contact, ws, Role::Owner, 0).unwrap();
        assert_eq!(
            keys.decode_visitor(&workspace.token).unwrap_err(),
            TokenError::WrongAudience
        );
        let mut foreign: serde_json::Value =
            jsonwebtoken::decode(&issued.token, &keys.0.decoding, &keys.0.visitor_validation)
                .unwrap()
                .claims;
        foreign["aud"] = "another-api".into();
        let foreign =
            jsonwebtoken::encode(&Header::new(Algorithm::HS256), &foreign, &keys.0.encoding)
                .unwrap();
        assert_eq!(keys.decode(&foreign).unwrap_err(), TokenError::Invalid);
        assert_eq!(
            keys.decode_visitor(&foreign).unwrap_err(),
            TokenError::Invalid
        );
        let other = JwtKeys::new(
            &SigningSecret::parse("another-adequately-long-secret-0123456789".into()).unwrap(),
        );
        assert_eq!(
            other.decode_visitor(&issued.token).unwrap_err(),
            TokenError::Invalid
        );
    }

    #[test]
    fn a_visitor_token_without_trust_counts_as_claimed() {
        let keys = keys(SECRET);
        let issued = keys
            .issue_visitor(
                Uuid::new_v4(),
                Uuid::new_v4(),
                Uuid::new_v4(),
                VisitorTrust::default(),
            )
            .unwrap();
        let mut claims: serde_json::Value =
            jsonwebtoken::decode(&issued.token, &keys.0.decoding, &keys.0.visitor_validation)
                .unwrap()
                .claims;
        assert_eq!(claims["trust"], "claimed");
        let object = claims.as_object_mut().unwrap();
        object.remove("trust");
        object.remove("epoch");
        let older = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &keys.0.encoding)
            .unwrap();
        let decoded = keys.decode_visitor(&older).unwrap();
        assert_eq!(
            decoded.trust,
            VisitorTrust {
                trust: Trust::Claimed,
                epoch: 0
            }
        );
    }

    #[test]
    fn another_key_is_refused() {
        let issued = keys(SECRET).issue_user(Uuid::new_v4(), 0).unwrap();
        let other = keys("another-adequately-long-secret-0123456789");
        assert_eq!(
            other.decode(&issued.token).unwrap_err(),
            TokenError::Invalid
        );
    }

    #[test]
    fn alg_none_is_refused() {
        let keys = keys(SECRET);
        let issued = keys.issue_user(Uuid::new_v4(), 0).unwrap();
        let payload = issued.token.split('.').nth(1).unwrap();
        let header = URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#);
        let forged = format!("{header}.{payload}.");
        assert_eq!(keys.decode(&forged).unwrap_err(), TokenError::Invalid);
    }

    #[test]
    fn incoherent_claims_are_refused() {
        let keys = keys(SECRET);
        let now = OffsetDateTime::now_utc().unix_timestamp();
        let claims = Claims {
            iss: ISSUER.into(),
            aud: AUDIENCE.into(),
            sub: Uuid::new_v4(),
            iat: now,
            exp: now + 60,
            jti: Uuid::new_v4(),
            kind: TokenKind::User,
            tid: Some(Uuid::new_v4()),
            role: Some(Role::Owner),
            ver: 0,
        };
        let token = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &keys.0.encoding)
            .unwrap();
        assert_eq!(keys.decode(&token).unwrap_err(), TokenError::Invalid);
    }
}
