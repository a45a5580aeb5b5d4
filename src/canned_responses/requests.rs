//! What the canned-response routes accept, and the checks that turn a request into what the
//! handlers act on (`NewCannedResponse::try_from(request)?`): a handler never sees unchecked
//! input, and one failed check answers with every field in error.

use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::canned_responses::template;
use crate::error::{Error, FieldChecks, Result};
use crate::inbox::text::{self, BODY_MAX_CHARS, SUBJECT_MAX_CHARS};

pub const SHORT_CODE_MAX_CHARS: usize = 32;

/// A short code as typed, lower-cased: 1 to 32 of `a-z`, `0-9`, `-` and `_`.
fn short_code(raw: &str) -> Result<String, String> {
    let code = raw.trim().to_lowercase();
    let valid_chars = code
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if code.is_empty() || code.chars().count() > SHORT_CODE_MAX_CHARS || !valid_chars {
        return Err(format!(
            "must be 1 to {SHORT_CODE_MAX_CHARS} letters, digits, - or _"
        ));
    }
    Ok(code)
}

fn title(raw: &str) -> Result<String, String> {
    text::required(raw, SUBJECT_MAX_CHARS)
}

/// A body within bounds whose placeholders' fallbacks can be read.
fn body(raw: &str) -> Result<String, String> {
    let body = text::required(raw, BODY_MAX_CHARS)?;
    template::check(&body)?;
    Ok(body)
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only those whose short code or title contains this (any case).
    pub q: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateCannedResponse {
    /// 1 to 32 letters, digits, `-` or `_`; stored lower case; unique in the workspace.
    #[schema(example = "refund")]
    short_code: String,
    #[schema(example = "Refund on its way")]
    title: String,
    #[schema(example = "Hi {{contact.name}}, your refund is on its way.")]
    body: String,
}

/// A canned response to create, checked.
#[derive(Debug)]
pub struct NewCannedResponse {
    pub short_code: String,
    pub title: String,
    pub body: String,
}

impl TryFrom<CreateCannedResponse> for NewCannedResponse {
    type Error = Error;

    fn try_from(request: CreateCannedResponse) -> Result<Self> {
        let mut checks = FieldChecks::default();
        let fields = (
            checks.check("shortCode", short_code(&request.short_code)),
            checks.check("title", title(&request.title)),
            checks.check("body", body(&request.body)),
        );
        match fields {
            (Some(short_code), Some(title), Some(body)) => Ok(Self {
                short_code,
                title,
                body,
            }),
            _ => Err(checks.failed()),
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CannedResponsePatch {
    short_code: Option<String>,
    title: Option<String>,
    body: Option<String>,
}

/// The fields of a canned response to change, checked; `None` leaves one as it is.
#[derive(Debug)]
pub struct CannedResponseChanges {
    pub short_code: Option<String>,
    pub title: Option<String>,
    pub body: Option<String>,
}

impl TryFrom<CannedResponsePatch> for CannedResponseChanges {
    type Error = Error;

    fn try_from(patch: CannedResponsePatch) -> Result<Self> {
        let mut checks = FieldChecks::default();
        let mut check = |field, value: Option<String>, rule: fn(&str) -> Result<String, String>| {
            checks.check(field, value.map(|value| rule(&value)).transpose())
        };
        let fields = (
            check("shortCode", patch.short_code, short_code),
            check("title", patch.title, title),
            check("body", patch.body, body),
        );
        match fields {
            (Some(short_code), Some(title), Some(body)) => Ok(Self {
                short_code,
                title,
                body,
            }),
            _ => Err(checks.failed()),
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RenderRequest {
    /// The conversation whose contact the response is for.
    pub conversation_id: Uuid,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_codes_are_lower_case_words() {
        assert_eq!(short_code(" Refund-2_x ").unwrap(), "refund-2_x");
        for bad in ["", "   ", "with space", "/slash", "ünï", &"a".repeat(33)] {
            assert!(short_code(bad).is_err(), "{bad}");
        }
    }
}
