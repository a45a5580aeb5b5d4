//! `GET /widget/v1/sites/{siteKey}/origin-check`: may this page's origin use this site key?
//!
//! The loader asks before it draws the launcher, so a site whose origin an Owner has not
//! allowed yet shows nothing instead of a chat button whose session is then refused. The
//! answer is one boolean for the request's own `Origin`: an unknown (or malformed) site key
//! and a missing `Origin` answer `false` exactly as a known key with another origin does, so
//! the route tells nobody which keys exist or which origins a workspace lists.
//!
//! Any origin may read the answer (that is its point: the asking page is on the customer's
//! site, whose origin no static list holds) and nothing is sent with credentials. The loader's
//! plain `fetch` is a simple request, which needs no preflight: the widget routes' own CORS
//! rule, outside, adds nothing for an origin it does not know and leaves this route's `*`.
//! Answers are cached for a few seconds per key and origin, as the sessions' CORS check
//! caches per origin, so a page reloaded in a loop costs the database little.

use std::sync::Arc;
use std::time::Duration;

use axum::Extension;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::http::header::ORIGIN;
use serde::Serialize;
use tower_http::cors::{AllowOrigin, CorsLayer};
use utoipa::ToSchema;

use crate::error::Result;
use crate::extract::AppJson;
use crate::state::AppState;

use super::site_key::SiteKey;

/// How long an answer is reused: an Owner's change of allowed origins shows within this.
const CACHED_FOR: Duration = Duration::from_secs(5);

/// Answers by `(site key, origin)`, per router.
#[derive(Clone)]
pub struct OriginChecks(Arc<moka::future::Cache<(String, String), bool>>);

impl Default for OriginChecks {
    fn default() -> Self {
        Self(Arc::new(
            moka::future::Cache::builder()
                .max_capacity(10_000)
                .time_to_live(CACHED_FOR)
                .build(),
        ))
    }
}

/// CORS for this route: any origin, `GET` only, no credentials.
pub fn cors() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(AllowOrigin::any())
        .allow_methods([axum::http::Method::GET])
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OriginCheck {
    /// Whether the request's `Origin` may start widget sessions with this site key.
    allowed: bool,
}

/// Whether the calling page's origin may use this site key (called by the widget's loader).
#[utoipa::path(
    get, path = "/widget/v1/sites/{siteKey}/origin-check", tag = "widget",
    params(("siteKey" = String, Path, description = "The site key the page embeds")),
    responses(
        (status = 200, description = "Whether the request's Origin is allowed; false for an unknown key or no Origin",
            body = OriginCheck),
    )
)]
pub async fn check(
    State(state): State<AppState>,
    Extension(checks): Extension<OriginChecks>,
    Path(site_key): Path<String>,
    headers: HeaderMap,
) -> Result<AppJson<OriginCheck>> {
    let origin = headers.get(ORIGIN).and_then(|o| o.to_str().ok());
    let (Some(site_key), Some(origin)) = (SiteKey::parse(&site_key), origin) else {
        return Ok(AppJson(OriginCheck { allowed: false }));
    };
    let key = (site_key.as_str().to_owned(), origin.to_owned());
    let allowed = checks
        .0
        .try_get_with(key, async {
            sqlx::query_scalar!(
                r#"SELECT EXISTS (
                       SELECT 1 FROM public.widget_sites s
                         JOIN public.workspaces w ON w.id = s.workspace_id
                        WHERE s.site_key = $1 AND s.allowed_origins @> ARRAY[$2::text]
                          AND w.status = 'active') AS "allowed!""#,
                site_key.as_str(),
                origin,
            )
            .fetch_one(&state.db)
            .await
        })
        .await?;
    Ok(AppJson(OriginCheck { allowed }))
}
