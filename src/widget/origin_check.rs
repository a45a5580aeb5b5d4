//! `GET /widget/v1/sites/{siteKey}/origin-check`: may the calling page's origin start chats
//! for this site key? The loader asks before it shows anything, so a widget pasted on a site
//! the workspace has not allowed shows visitors nothing (rather than a launcher that cannot
//! connect) and tells the site owner, in the browser console, which origin to allow.
//!
//! Any origin may ask (the session route answers CORS only for allowed origins, so a refused
//! page could not read its refusal), and the answer says nothing else: an unknown or deleted
//! site key is `allowed: false` too, so the route cannot tell which keys exist.

use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::http::header::ORIGIN;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::{Error, Result};
use crate::extract::{AppJson, ClientIp};
use crate::rate_limit::{Decision, Quota};
use crate::state::AppState;

use super::site_key::SiteKey;

/// Checks one client may make: a page load each.
const CHECKS_PER_CLIENT: Quota = Quota {
    limit: 300,
    window: Duration::from_secs(600),
};

#[derive(Debug, Serialize, ToSchema)]
pub struct OriginCheck {
    /// Whether the calling page's origin may start chats for this site key.
    pub allowed: bool,
}

/// Whether the calling page's origin (its `Origin` header) may start chats for this site key.
#[utoipa::path(
    get, path = "/widget/v1/sites/{siteKey}/origin-check", tag = "widget",
    params(("siteKey" = String, Path, description = "The widget's site key")),
    responses(
        (status = 200, description = "Whether the calling origin is allowed (false for an unknown site key too)",
            body = OriginCheck),
        (status = 429, description = "Too many checks from this client; see Retry-After",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn check(
    State(state): State<AppState>,
    client: ClientIp,
    Path(site_key): Path<String>,
    headers: HeaderMap,
) -> Result<AppJson<OriginCheck>> {
    let key = format!("widget:origin-check:ip:{}", client.rate_limit_key());
    if let Decision::Limited { retry_after } =
        state.rate_limiter.check(&key, CHECKS_PER_CLIENT).await
    {
        return Err(Error::TooManyRequests { retry_after });
    }
    let origin = headers.get(ORIGIN).and_then(|o| o.to_str().ok());
    let (Some(site_key), Some(origin)) = (SiteKey::parse(&site_key), origin) else {
        return Ok(AppJson(OriginCheck { allowed: false }));
    };
    let allowed = sqlx::query_scalar!(
        r#"SELECT EXISTS (
               SELECT 1 FROM public.widget_sites s
                 JOIN public.workspaces w ON w.id = s.workspace_id
                WHERE s.site_key = $1 AND w.status = 'active'
                  AND s.allowed_origins @> ARRAY[$2::text]) AS "allowed!""#,
        site_key.as_str(),
        origin,
    )
    .fetch_one(&state.db)
    .await?;
    Ok(AppJson(OriginCheck { allowed }))
}
