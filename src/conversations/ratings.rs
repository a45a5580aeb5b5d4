//! Customer satisfaction: a customer rates a resolution of their conversation, 1 to 5, with an
//! optional comment. A rating is of one resolution (the conversation's `resolved_at` when it
//! was given), so a reopened and re-resolved conversation may be rated again while one
//! resolution is rated once: the table's unique constraint says so, whoever races.
//!
//! Whether customers are asked at all is the workspace's `inbox.csatOnResolve` (on by
//! default); the widget asks while the resolved conversation is the visitor's current one.

use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::{Error, OnConstraint, Result};

/// The longest comment, in characters.
pub const COMMENT_MAX_CHARS: usize = 2000;

/// A score from 1 (very unhappy) to 5 (very happy).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Score(i16);

impl TryFrom<i64> for Score {
    type Error = String;

    fn try_from(value: i64) -> Result<Self, String> {
        match i16::try_from(value) {
            Ok(score @ 1..=5) => Ok(Self(score)),
            _ => Err(format!(
                "a rating is a whole number from 1 to 5, not {value}"
            )),
        }
    }
}

impl From<Score> for i16 {
    fn from(score: Score) -> Self {
        score.0
    }
}

/// An optional comment: trimmed, empty is none, at most [`COMMENT_MAX_CHARS`].
pub fn comment(text: Option<String>) -> Result<Option<String>, String> {
    let Some(text) = text else {
        return Ok(None);
    };
    let trimmed = text.trim();
    if trimmed.chars().count() > COMMENT_MAX_CHARS {
        return Err(format!(
            "a comment is at most {COMMENT_MAX_CHARS} characters"
        ));
    }
    Ok((!trimmed.is_empty()).then(|| trimmed.to_owned()))
}

/// One rating, as a conversation's `ratings` list shows it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct Rating {
    pub id: Uuid,
    /// 1 (very unhappy) to 5 (very happy).
    #[schema(minimum = 1, maximum = 5)]
    pub rating: i16,
    pub comment: Option<String>,
    /// The resolution rated: when the conversation was resolved.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub resolved_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

/// The SQL of a conversation's ratings, oldest first, as one JSON array `ratings` for the
/// conversation `c`: for `conversations::record`'s joins.
pub const RATINGS_OF_CONVERSATION: &str = "SELECT coalesce(json_agg(json_build_object(
                 'id', rt.id, 'rating', rt.rating, 'comment', rt.comment,
                 'resolvedAt', rt.resolved_at, 'createdAt', rt.created_at)
                 ORDER BY rt.created_at, rt.id), '[]'::json) AS ratings
           FROM {schema}.conversation_ratings rt
          WHERE rt.conversation_id = c.id";

/// Where a customer's rating goes: their current conversation, locked, with what the
/// workspace asks.
#[derive(Debug, sqlx::FromRow)]
pub struct Rateable {
    pub conversation_id: Uuid,
    pub resolved_at: Option<OffsetDateTime>,
    pub asks: bool,
}

/// Whether the workspace asks customers to rate resolutions (`inbox.csatOnResolve`, absent
/// is on), as SQL over `settings s`.
pub const ASKS: &str = "coalesce((s.inbox ->> 'csatOnResolve')::boolean, true)";

/// Records `score` for the resolution of conversation `conversation_id` at `resolved_at`
/// (the caller locked the conversation and found it resolved then). 409 when that resolution is rated already.
pub async fn insert(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    conversation_id: Uuid,
    resolved_at: OffsetDateTime,
    score: Score,
    comment: Option<&str>,
) -> Result<Rating> {
    sqlx::query_as(schema.sql(
        "INSERT INTO {schema}.conversation_ratings (conversation_id, resolved_at, rating, comment)
         VALUES ($1, $2, $3, $4)
         RETURNING id, rating, comment, resolved_at, created_at",
    ))
    .bind(conversation_id)
    .bind(resolved_at)
    .bind(i16::from(score))
    .bind(comment)
    .fetch_one(conn)
    .await
    .on_constraint("conversation_ratings_once_per_resolution", || {
        Error::conflict(
            "already_rated",
            "this resolution of the conversation is rated already",
        )
    })
}

/// Adds `comment` to rating `id` when it has none; the rating as it now is, or `None` when
/// it has a comment already.
pub async fn add_comment(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
    comment: &str,
) -> sqlx::Result<Option<Rating>> {
    sqlx::query_as(schema.sql(
        "UPDATE {schema}.conversation_ratings SET comment = $2
          WHERE id = $1 AND comment IS NULL
         RETURNING id, rating, comment, resolved_at, created_at",
    ))
    .bind(id)
    .bind(comment)
    .fetch_optional(conn)
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_one_to_five() {
        for ok in 1..=5 {
            assert_eq!(i16::from(Score::try_from(ok).unwrap()), ok as i16);
        }
        for bad in [0, 6, -1, 70_000] {
            assert!(Score::try_from(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn comments_are_trimmed_and_bounded() {
        assert_eq!(comment(None), Ok(None));
        assert_eq!(comment(Some("  ".into())), Ok(None));
        assert_eq!(comment(Some(" quick! ".into())), Ok(Some("quick!".into())));
        assert!(comment(Some("é".repeat(COMMENT_MAX_CHARS))).is_ok());
        assert!(comment(Some("é".repeat(COMMENT_MAX_CHARS + 1))).is_err());
    }
}
