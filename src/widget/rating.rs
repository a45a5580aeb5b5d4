//! `POST /widget/v1/conversation/rating`: the visitor rates the resolution of their current
//! conversation (`conversations::ratings`). The conversation is the one their next message
//! would reopen, so a rating always names a resolution less than 7 days old; the
//! conversation's row is locked meanwhile, so an agent reopening it either waits for the
//! rating or turns it away.

use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::conversations::intake;
use crate::conversations::ratings::{self, Rating, Score};
use crate::error::{Error, FieldChecks, Result};
use crate::events::catalogue::{ConversationRated, DomainEvent};
use crate::events::log::{self, By};
use crate::extract::AppJson;
use crate::rate_limit::Quota;
use crate::state::AppState;

use super::actions;
use super::visitor::{Visitor, VisitorTx};

/// Ratings one visitor may try: one per resolution is all that is stored.
const RATINGS: Quota = Quota {
    limit: 10,
    window: Duration::from_secs(3600),
};

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewRating {
    /// 1 (very unhappy) to 5 (very happy).
    #[schema(minimum = 1, maximum = 5, example = 5)]
    rating: i64,
    /// At most 2 000 characters.
    #[schema(example = "Quick and kind, thank you!", max_length = 2000)]
    comment: Option<String>,
}

/// Rate the resolution of the current conversation, 1 to 5, with an optional comment.
#[utoipa::path(
    post, path = "/widget/v1/conversation/rating", tag = "widget",
    security(("visitor" = [])),
    request_body = NewRating,
    responses(
        (status = 201, description = "The rating as agents see it", body = Rating),
        (status = 400, description = "A rating outside 1 to 5, or a comment too long",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing, invalid or expired visitor token, or one whose identity is no longer trusted (its contact was verified since, or the workspace verifies identities)",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a visitor token (`wrong_token_type`), or a deleted workspace",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 409, description = "Nothing to rate (`nothing_to_rate`: no conversation, or it is not resolved), the workspace does not ask for ratings (`ratings_off`), or this resolution is rated already (`already_rated`)",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many ratings from this visitor; see Retry-After",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn rate(
    State(state): State<AppState>,
    visitor: Visitor,
    AppJson(request): AppJson<NewRating>,
) -> Result<(StatusCode, AppJson<Rating>)> {
    let mut checks = FieldChecks::default();
    let score = checks.check("rating", Score::try_from(request.rating));
    let comment = checks.check("comment", ratings::comment(request.comment));
    let (Some(score), Some(comment)) = (score, comment) else {
        return Err(checks.failed());
    };
    actions::limit(&state, "ratings", &visitor, RATINGS).await?;
    let mut tx = VisitorTx::begin(&state, &visitor.schema).await?;
    let contact = tx.lock_contact(&visitor).await?;
    let (conn, schema) = tx.parts();
    let current = intake::lock_current_for_rating(&mut *conn, schema, contact).await?;
    let Some(current) = current else {
        return Err(nothing_to_rate());
    };
    let Some(resolved_at) = current.resolved_at else {
        return Err(nothing_to_rate());
    };
    if !current.asks {
        return Err(Error::conflict(
            "ratings_off",
            "this workspace does not ask for ratings",
        ));
    }
    let rating = ratings::insert(
        &mut *conn,
        schema,
        current.conversation_id,
        resolved_at,
        score,
        comment.as_deref(),
    )
    .await?;
    let rated = DomainEvent::ConversationRated(Box::new(ConversationRated {
        conversation_id: current.conversation_id,
        contact_id: visitor.contact_id,
        rating: rating.clone(),
    }));
    let recorded = log::append(conn, schema, By::Visitor(visitor.contact_id), vec![rated]).await?;
    tx.commit().await?;
    state.events.committed(visitor.workspace_id, recorded);
    Ok((StatusCode::CREATED, AppJson(rating)))
}

fn nothing_to_rate() -> Error {
    Error::conflict(
        "nothing_to_rate",
        "there is no resolved conversation to rate",
    )
}
