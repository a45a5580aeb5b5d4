//! `PUT /widget/v1/context`: the visitor's browser tells where they are (page, referrer,
//! time zone, language), for the agent's contact panel and for the link back to the chat in
//! reply emails. Their word, like everything a visitor sends: shown to agents as reported,
//! links only when http(s), nothing ever fetched. The user agent is taken from the request.

use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::agents::profile::web_url;
use crate::error::{FieldChecks, Result};
use crate::extract::AppJson;
use crate::inbox::text;
use crate::rate_limit::Quota;
use crate::state::AppState;

use super::actions;
use super::visitor::Visitor;

/// Times one visitor's browser may report (a page view each): generous for browsing, a
/// bound for a script.
const REPORTS: Quota = Quota {
    limit: 120,
    window: Duration::from_secs(3600),
};
const TITLE_MAX_CHARS: usize = 300;
const TIME_ZONE_MAX_CHARS: usize = 64;
const LOCALE_MAX_CHARS: usize = 35;
const USER_AGENT_MAX_CHARS: usize = 512;

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VisitorContextReport {
    /// The page the widget is on (http or https).
    #[schema(example = "https://shop.example.com/orders/123")]
    page_url: Option<String>,
    page_title: Option<String>,
    /// `document.referrer` of the page: where the visitor came from. Kept from the first
    /// report that has one.
    referrer: Option<String>,
    /// IANA time zone, e.g. `Europe/Lisbon`.
    #[schema(example = "Europe/Lisbon")]
    time_zone: Option<String>,
    /// BCP 47 language tag, e.g. `pt-PT`.
    #[schema(example = "pt-PT")]
    locale: Option<String>,
}

/// An optional short text: blank is none, longer than `max` characters is refused.
fn short(value: Option<String>, max: usize) -> Result<Option<String>, String> {
    text::optional(value.as_deref(), max)
}

/// An optional http(s) URL: blank is none.
fn link(value: Option<String>) -> Result<Option<String>, String> {
    match value.filter(|v| !v.trim().is_empty()) {
        Some(v) => web_url(&v).map(Some),
        None => Ok(None),
    }
}

/// Report where the visitor is: sent by the widget when it starts and when the page changes.
#[utoipa::path(
    put, path = "/widget/v1/context", tag = "widget",
    security(("visitor" = [])),
    request_body = VisitorContextReport,
    responses(
        (status = 204, description = "Recorded"),
        (status = 400, description = "A field is not what it should be",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing, invalid or expired visitor token",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a visitor token (`wrong_token_type`), or a deleted workspace",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many reports from this visitor; see Retry-After",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn report(
    State(state): State<AppState>,
    visitor: Visitor,
    headers: HeaderMap,
    AppJson(report): AppJson<VisitorContextReport>,
) -> Result<StatusCode> {
    let mut checks = FieldChecks::default();
    let page_url = checks.check("pageUrl", link(report.page_url)).flatten();
    let page_title = checks
        .check("pageTitle", short(report.page_title, TITLE_MAX_CHARS))
        .flatten();
    let referrer = checks.check("referrer", link(report.referrer)).flatten();
    let time_zone = checks
        .check("timeZone", short(report.time_zone, TIME_ZONE_MAX_CHARS))
        .flatten();
    let locale = checks
        .check("locale", short(report.locale, LOCALE_MAX_CHARS))
        .flatten();
    if !checks.is_empty() {
        return Err(checks.failed());
    }
    let user_agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.chars().take(USER_AGENT_MAX_CHARS).collect::<String>());
    actions::limit(&state, "context", &visitor, REPORTS).await?;
    sqlx::query(visitor.schema.sql(
        "UPDATE {schema}.contacts
            SET last_page_url = coalesce($2, last_page_url),
                last_page_title = CASE WHEN $2 IS NULL THEN last_page_title ELSE $3 END,
                referrer = coalesce(referrer, $4),
                user_agent = coalesce($5, user_agent),
                time_zone = coalesce($6, time_zone),
                locale = coalesce($7, locale),
                last_seen_at = now()
          WHERE id = $1",
    ))
    .bind(visitor.contact_id)
    .bind(page_url)
    .bind(page_title)
    .bind(referrer)
    .bind(user_agent)
    .bind(time_zone)
    .bind(locale)
    .execute(&state.db)
    .await?;
    Ok(StatusCode::NO_CONTENT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::profile::URL_MAX_LEN;

    #[test]
    fn reports_are_checked_not_trusted() {
        assert_eq!(short(Some("  ".into()), 5), Ok(None));
        assert!(short(Some("x".repeat(6)), 5).is_err());
        assert_eq!(link(Some(String::new())), Ok(None));
        assert!(link(Some("javascript:alert(1)".into())).is_err());
        assert!(
            link(Some(format!(
                "https://a.example/{}",
                "x".repeat(URL_MAX_LEN)
            )))
            .is_err()
        );
        assert_eq!(
            link(Some("https://shop.example.com/x".into())),
            Ok(Some("https://shop.example.com/x".into()))
        );
    }
}
