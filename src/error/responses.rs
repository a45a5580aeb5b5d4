//! The problem answers of each kind of caller check, as OpenAPI response sets for the
//! handlers' `#[utoipa::path(responses(...))]`: one type per authorization rule, written
//! once here instead of on every operation behind the rule.
//!
//! A rule answers 401 (no usable credential) and 403 (a credential the rule refuses); each
//! set's 403 says which credentials its rule refuses. What a route adds of its own (a 409, a
//! 429) stays in its annotation, where its description can be particular to it. The answers
//! every route gives because of its shape (400 for a body or a query string, 404 for a path
//! id, 413, 415, 500, 503) are added to the document by `crate::openapi::CommonResponses`,
//! and need no annotation at all.

use utoipa::IntoResponses;

use crate::error::Problem;

/// One rule's response set: the shared 401, and a 403 described by `$forbidden`. The
/// variants are never built; the types exist for their `IntoResponses` implementation.
macro_rules! rule_errors {
    ($(#[$doc:meta])* $name:ident, $unauthorized:tt, $forbidden:tt) => {
        $(#[$doc])*
        #[derive(IntoResponses)]
        pub enum $name {
            #[response(
                status = 401,
                description = $unauthorized,
                content_type = "application/problem+json",
                headers(("WWW-Authenticate" = String, description = "`Bearer`"))
            )]
            Unauthorized(Problem),
            #[response(
                status = 403,
                description = $forbidden,
                content_type = "application/problem+json"
            )]
            Forbidden(Problem),
        }
    };
}

rule_errors!(
    /// `Rule::members` with a permission every member has: conversations, tickets, using
    /// canned responses, one's own profile, viewing the workspace.
    MemberErrors,
    "Missing, malformed, expired or revoked credentials",
    "A user token, an API key, a deactivated membership, or a deleted workspace (`code` says which)"
);

rule_errors!(
    /// `Rule::members` with a permission only Owners have: settings, writing canned
    /// responses, API keys, invitations, deleting the workspace.
    OwnerErrors,
    "Missing, malformed, expired or revoked credentials",
    "Not an Owner (`owner_only`), an API key, a user token, a deactivated membership, or a deleted workspace (`code` says which)"
);

rule_errors!(
    /// `Rule::members_or_api_key` for looking at the team: every member, and the
    /// workspace's API keys.
    TeamViewErrors,
    "Missing, malformed, expired or revoked credentials",
    "A user token, a deactivated membership, or a deleted workspace (`code` says which)"
);

rule_errors!(
    /// `Rule::members_or_api_key` for managing the team: Owners, and the workspace's API
    /// keys as long as they leave the Owner role alone.
    TeamManageErrors,
    "Missing, malformed, expired or revoked credentials",
    "Not an Owner (`owner_only`), an API key touching an Owner (`api_key_cannot_manage_owners`), an inviter whose email is not verified (`email_not_verified`), a user token, a deactivated membership, or a deleted workspace"
);

rule_errors!(
    /// Routes that take a user token (`auth::extract::UserToken`), not a workspace's.
    UserTokenErrors,
    "Missing, malformed, expired or revoked user token",
    "A workspace token instead of a user token (`wrong_token_type`)"
);

rule_errors!(
    /// `Rule::members_or_api_key` for reading what every member may see: every member, and
    /// the workspace's API keys.
    WorkspaceViewErrors,
    "Missing, malformed, expired or revoked credentials",
    "A user token, a deactivated membership, or a deleted workspace (`code` says which)"
);

rule_errors!(
    /// `Rule::members_or_api_key` for reports: every member (an Agent sees their own
    /// figures) and the workspace's API keys.
    ReportErrors,
    "Missing, malformed, expired or revoked credentials",
    "A user token, a deactivated membership, a deleted workspace, an Agent asking for another agent's figures (`own_reports_only`) or for a team-wide report (`owner_only`) (`code` says which)"
);
