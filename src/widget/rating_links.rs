//! `POST|PATCH /widget/v1/rating-links`: the widget app's rating page, opened from the links
//! emailed to the customer of a resolved email conversation (`conversations::rating_links`),
//! rates the resolution (one click: the page posts the score its link names) and may then
//! add a comment. The link's token is the only credential; attempts are limited per address.

use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use supportdesk_core::outbox::messages::workspace;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::conversations::rating_links::{self, Link};
use crate::conversations::ratings::{self, Rating, Score};
use crate::error::{Error, FieldChecks, Result};
use crate::events::catalogue::{ConversationRated, DomainEvent};
use crate::events::log::{self, By};
use crate::extract::{AppJson, ClientIp};
use crate::rate_limit::{Decision, Quota};
use crate::state::AppState;

use super::visitor::VisitorTx;

/// Link uses one address may try: a person rates a few conversations, not hundreds.
const ATTEMPTS: Quota = Quota {
    limit: 30,
    window: Duration::from_secs(3600),
};

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LinkRating {
    /// The workspace the link names (`w`).
    workspace_id: Uuid,
    /// The link's token (`t`).
    token: String,
    /// 1 (very unhappy) to 5 (very happy): the score of the link opened (`r`).
    #[schema(minimum = 1, maximum = 5, example = 5)]
    rating: i64,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LinkComment {
    workspace_id: Uuid,
    token: String,
    /// 1 to 2 000 characters.
    #[schema(example = "Quick and kind, thank you!", max_length = 2000)]
    comment: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LinkRated {
    rating: Rating,
    conversation_number: i64,
    /// The team as the workspace's branding names it.
    team_name: String,
}

async fn limit(state: &AppState, client: ClientIp) -> Result<()> {
    let key = format!("widget:rating-link:{}", client.rate_limit_key());
    match state.rate_limiter.check(&key, ATTEMPTS).await {
        Decision::Allowed => Ok(()),
        Decision::Limited { retry_after } => Err(Error::TooManyRequests { retry_after }),
    }
}

fn not_found() -> Error {
    Error::NotFound("rating link")
}

/// The workspace's schema and its team name, when the workspace is active.
async fn workspace(
    state: &AppState,
    id: Uuid,
) -> Result<(supportdesk_core::tenancy::TenantSchema, String)> {
    let mut conn = state.db.acquire().await?;
    let found = workspace::active(&mut conn, id)
        .await?
        .ok_or_else(not_found)?;
    Ok((found.schema, found.name))
}

/// A link that may still be used: known, not expired.
fn usable(link: Option<Link>) -> Result<Link> {
    let link = link.ok_or_else(not_found)?;
    if link.expired {
        return Err(Error::Gone {
            code: "link_expired",
            detail: "this rating link has expired".to_owned(),
        });
    }
    Ok(link)
}

/// Rate the resolution a rating link names (the score of the link opened).
#[utoipa::path(
    post, path = "/widget/v1/rating-links", tag = "widget",
    request_body = LinkRating,
    responses(
        (status = 201, description = "The rating, with the conversation's number and the team's name", body = LinkRated),
        (status = 400, description = "A rating outside 1 to 5, or a malformed body",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such link (unknown or altered)",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The resolution is rated already (`already_rated`: this link was used, or the customer rated in the chat), or the conversation was reopened since (`nothing_to_rate`)",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 410, description = "The link has expired (`link_expired`, after 7 days)",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many attempts from this address; see Retry-After",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn rate(
    State(state): State<AppState>,
    client: ClientIp,
    AppJson(request): AppJson<LinkRating>,
) -> Result<(StatusCode, AppJson<LinkRated>)> {
    let mut checks = FieldChecks::default();
    let score = checks.check("rating", Score::try_from(request.rating));
    let Some(score) = score else {
        return Err(checks.failed());
    };
    limit(&state, client).await?;
    let (schema, workspace_name) = workspace(&state, request.workspace_id).await?;
    let mut tx = VisitorTx::begin(&state, &schema).await?;
    let (conn, schema) = tx.parts();
    let link = usable(rating_links::find(&mut *conn, schema, &request.token).await?)?;
    if link.rating_id.is_some() {
        return Err(Error::conflict(
            "already_rated",
            "this conversation has been rated already with this link",
        ));
    }
    if !link.still_resolved {
        return Err(Error::conflict(
            "nothing_to_rate",
            "the conversation was reopened since this link was sent",
        ));
    }
    let rating = ratings::insert(
        &mut *conn,
        schema,
        link.conversation_id,
        link.resolved_at,
        score,
        None,
    )
    .await?;
    rating_links::used(&mut *conn, schema, link.id, rating.id).await?;
    let brand: Option<String> =
        sqlx::query_scalar(schema.sql("SELECT branding->>'name' FROM {schema}.settings"))
            .fetch_one(&mut *conn)
            .await?;
    let team_name = workspace::team_name(brand, workspace_name);
    let recorded = record(conn, schema, &link, &rating).await?;
    tx.commit().await?;
    state.events.committed(request.workspace_id, recorded);
    Ok((
        StatusCode::CREATED,
        AppJson(LinkRated {
            rating,
            conversation_number: link.conversation_number,
            team_name,
        }),
    ))
}

/// Add a comment to the rating a rating link made (once).
#[utoipa::path(
    patch, path = "/widget/v1/rating-links", tag = "widget",
    request_body = LinkComment,
    responses(
        (status = 200, description = "The rating with its comment", body = Rating),
        (status = 400, description = "An empty or too long comment, or a malformed body",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such link (unknown or altered)",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The link has rated nothing yet (`nothing_to_rate`), or its rating has a comment already (`comment_given`)",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 410, description = "The link has expired (`link_expired`)",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many attempts from this address; see Retry-After",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn comment(
    State(state): State<AppState>,
    client: ClientIp,
    AppJson(request): AppJson<LinkComment>,
) -> Result<AppJson<Rating>> {
    let mut checks = FieldChecks::default();
    let comment = checks
        .check("comment", ratings::comment(Some(request.comment)))
        .flatten();
    let Some(comment) = comment else {
        if checks.is_empty() {
            checks.add("comment", "write a comment, or leave the page");
        }
        return Err(checks.failed());
    };
    limit(&state, client).await?;
    let (schema, _) = workspace(&state, request.workspace_id).await?;
    let mut tx = VisitorTx::begin(&state, &schema).await?;
    let (conn, schema) = tx.parts();
    let link = usable(rating_links::find(&mut *conn, schema, &request.token).await?)?;
    let Some(rating_id) = link.rating_id else {
        return Err(Error::conflict(
            "nothing_to_rate",
            "rate the conversation with this link first",
        ));
    };
    let rating = ratings::add_comment(&mut *conn, schema, rating_id, &comment)
        .await?
        .ok_or_else(|| Error::conflict("comment_given", "this rating has a comment already"))?;
    let recorded = record(conn, schema, &link, &rating).await?;
    tx.commit().await?;
    state.events.committed(request.workspace_id, recorded);
    Ok(AppJson(rating))
}

/// `conversation.rated`, by the customer: again, with the same rating id, when its comment
/// is added.
async fn record(
    conn: &mut sqlx::PgConnection,
    schema: &supportdesk_core::tenancy::TenantSchema,
    link: &Link,
    rating: &Rating,
) -> Result<crate::events::log::Appended> {
    let rated = DomainEvent::ConversationRated(Box::new(ConversationRated {
        conversation_id: link.conversation_id,
        contact_id: link.contact_id,
        rating: rating.clone(),
    }));
    Ok(log::append(conn, schema, By::Visitor(link.contact_id), vec![rated]).await?)
}
