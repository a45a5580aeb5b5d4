//! `POST /inbound/email`: the operator's MTA hands over one received message, raw
//! (`Content-Type: message/rfc822`), with the deployment's `INBOUND_EMAIL_SECRET` as its bearer
//! token and the envelope recipient in `X-Original-To` (Postfix's name for it). The answer
//! tells the MTA whether to retry: 2xx taken (or knowingly dropped), 4xx never (the message
//! is refused for good), 5xx later.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use subtle::ConstantTimeEq;

use super::receive::{self, Receipt};
use crate::error::{Error, Result};
use crate::extract::AppJson;
use crate::state::AppState;

const ORIGINAL_TO: &str = "x-original-to";

fn authorised(state: &AppState, headers: &HeaderMap) -> Result<()> {
    let Some(secret) = &state.settings.inbound.secret else {
        return Err(Error::Body {
            status: StatusCode::NOT_FOUND,
            code: "inbound_email_disabled",
            detail: "this deployment takes no mail over HTTP: INBOUND_EMAIL_SECRET is not set"
                .to_owned(),
        });
    };
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or(Error::Unauthorized(
            "expected the inbound email secret as a bearer token",
        ))?;
    if bool::from(presented.as_bytes().ct_eq(secret.expose())) {
        Ok(())
    } else {
        Err(Error::Unauthorized("the inbound email secret is wrong"))
    }
}

/// Receive one email.
#[utoipa::path(
    post, path = "/inbound/email", tag = "email",
    security(("inbound_secret" = [])),
    params(
        ("X-Original-To" = Option<String>, Header,
         description = "The envelope recipient: the workspace's forwarding address"),
    ),
    request_body(content = String, content_type = "message/rfc822",
                  description = "The message as received"),
    responses(
        (status = 200, description = "Taken, or knowingly dropped (see `outcome`)", body = Receipt),
        (status = 401, description = "Missing or wrong secret", body = crate::error::Problem),
        (status = 404, description = "No workspace has this forwarding address, or inbound mail over HTTP is off", body = crate::error::Problem),
        (status = 413, description = "The message is too large", body = crate::error::Problem),
        (status = 415, description = "Not message/rfc822", body = crate::error::Problem),
        (status = 422, description = "The message has no usable From address", body = crate::error::Problem),
        (status = 503, description = "Storage or the database is unavailable: retry later", body = crate::error::Problem),
    )
)]
pub async fn inbound(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<AppJson<Receipt>> {
    authorised(&state, &headers)?;
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !content_type
        .split(';')
        .next()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("message/rfc822"))
    {
        return Err(Error::Body {
            status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
            code: "invalid_email",
            detail: "expected Content-Type: message/rfc822".to_owned(),
        });
    }
    let recipient = headers.get(ORIGINAL_TO).and_then(|v| v.to_str().ok());
    Ok(AppJson(receive::receive(&state, recipient, body).await?))
}
