//! `POST /hubs/chat/negotiate` and the WebSocket request `GET /hubs/chat`.
//!
//! Negotiate takes the workspace token of an agent, or the visitor token of a widget visitor,
//! in `Authorization` (the official clients send the `headers` option there) and answers a
//! single-use connection token; the WebSocket request
//! redeems it from `?id=`. A client that skips negotiation sends `Authorization` on the
//! WebSocket request itself. A token in the URL (`access_token`) is refused: the spec keeps
//! credentials out of URLs, and the connection token is the only thing the URL may carry.
//!
//! Both negotiate versions ASP.NET Core serves are served: version 1 answers a
//! `connectionId` (a name) and a `connectionToken` (the credential); version 0, asked for by
//! clients that send no `negotiateVersion`, has only a `connectionId`, which its clients
//! connect with, so there the id is the single-use credential (and, like every query
//! string, never logged).
//!
//! The WebSocket request takes the connection's place in the registry before it upgrades
//! (`Registry::reserve`): caps count connections still in their handshake, so a burst of
//! upgrades with one token cannot exceed them. From the moment the process begins to shut
//! down, both requests answer 503, so reconnecting clients land on another replica.

use std::time::Duration;

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngExt;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::auth::extract::bearer;
use crate::authz::{Actor, Permission, api_key, workspace_member};
use crate::conversations::actions;
use crate::error::responses::MemberErrors;
use crate::error::{Error, Result};
use crate::extract::AppJson;
use crate::hub::registry::{AgentIdentity, Limits, Participant};
use crate::hub::tokens::{self, Grant, TokenError};
use crate::rate_limit::{Decision, Quota};
use crate::state::AppState;
use crate::widget::visitor::Visitor;

use super::connection;

/// Hub connections one widget visitor token may hold open on one replica (their open tabs).
pub const MAX_CONNECTIONS_PER_VISITOR: usize = 5;
/// Hub connections one agent may hold open in one workspace on one replica (their tabs and
/// devices).
pub const MAX_CONNECTIONS_PER_AGENT: usize = 20;
/// Negotiations one credential may start: every tab's start and reconnects, not a loop.
const NEGOTIATIONS_PER_CREDENTIAL: Quota = Quota {
    limit: 60,
    window: Duration::from_secs(60),
};
/// Inbound messages (records) larger than this close the connection.
pub const MAX_MESSAGE_BYTES: usize = crate::hub::protocol::MAX_RECORD_BYTES;
/// What a connection reads from its socket at a time (records are far smaller).
const READ_BUFFER_BYTES: usize = 4 * 1024;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct NegotiateQuery {
    /// The negotiate protocol version the client speaks: 1, or 0 when absent.
    #[serde(rename = "negotiateVersion")]
    negotiate_version: Option<u32>,
    /// Refused: tokens are never sent in URLs.
    #[param(ignore)]
    access_token: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Negotiated {
    /// 1, or 0 for a client that asked for no version.
    #[schema(example = 1)]
    negotiate_version: u32,
    /// Version 1: names the connection, not a credential. Version 0: pass it as `id` on the
    /// WebSocket request, within 60 s, once.
    connection_id: String,
    /// Version 1 only: pass as `id` on the WebSocket request, within 60 s, once.
    #[serde(skip_serializing_if = "Option::is_none")]
    connection_token: Option<String>,
    available_transports: [Transport; 1],
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Transport {
    #[schema(example = "WebSockets")]
    transport: &'static str,
    #[schema(example = json!(["Text", "Binary"]))]
    transfer_formats: [&'static str; 2],
}

fn refuse_token_in_url(access_token: Option<&String>) -> Result<()> {
    if access_token.is_some() {
        return Err(Error::Unauthorized(
            "tokens are not accepted in URLs: send the token in the Authorization header of POST /hubs/chat/negotiate",
        ));
    }
    Ok(())
}

/// Start a chat hub connection: a single-use token for the WebSocket request.
#[utoipa::path(
    post, path = "/hubs/chat/negotiate", tag = "chat",
    security(("bearer" = [])),
    params(NegotiateQuery),
    responses(
        (status = 200, description = "A connection token for `GET /hubs/chat?id=` (version 1), or the connection id to connect with (version 0)", body = Negotiated),
        MemberErrors,
        (status = 429, description = "Too many negotiations with this credential; see Retry-After",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 503, description = "This server is shutting down: connect again to reach another replica",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn negotiate(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(query): Query<NegotiateQuery>,
) -> Result<AppJson<Negotiated>> {
    refuse_token_in_url(query.access_token.as_ref())?;
    refuse_while_draining(&state)?;
    let grant = identify(&state, &headers).await?;
    limit_negotiations(&state, &grant.who).await?;
    let connection_token = state.hub.tokens().issue(&grant).await;
    let transports = [Transport {
        transport: "WebSockets",
        transfer_formats: ["Text", "Binary"],
    }];
    Ok(AppJson(match query.negotiate_version {
        Some(version) if version >= 1 => Negotiated {
            negotiate_version: 1,
            connection_id: URL_SAFE_NO_PAD.encode(rand::rng().random::<[u8; 16]>()),
            connection_token: Some(connection_token),
            available_transports: transports,
        },
        _ => Negotiated {
            negotiate_version: 0,
            connection_id: connection_token,
            connection_token: None,
            available_transports: transports,
        },
    }))
}

/// A process that is shutting down takes no new connections: the load balancer's next
/// choice is another replica.
fn refuse_while_draining(state: &AppState) -> Result<()> {
    if state.hub.closing().is_cancelled() {
        return Err(Error::Unavailable(
            "this server is shutting down; connect again to reach another",
        ));
    }
    Ok(())
}

/// One credential's negotiations, across replicas: each issues a connection token, which a
/// loop would otherwise pile up in Redis.
async fn limit_negotiations(state: &AppState, who: &Participant) -> Result<()> {
    let key = match who {
        Participant::Agent(agent) => format!(
            "hub:negotiate:agent:{}:{}",
            agent.workspace_id, agent.user_id
        ),
        Participant::Visitor(visitor) => format!(
            "hub:negotiate:visitor:{}:{}",
            visitor.workspace_id, visitor.visitor_id
        ),
    };
    match state
        .rate_limiter
        .check(&key, NEGOTIATIONS_PER_CREDENTIAL)
        .await
    {
        Decision::Allowed => Ok(()),
        Decision::Limited { retry_after } => Err(Error::TooManyRequests { retry_after }),
    }
}

/// Who connects, from `Authorization`: a widget visitor, or a member who handles
/// conversations. The credential's expiry bounds the connection.
async fn identify(state: &AppState, headers: &HeaderMap) -> Result<Grant> {
    let credential = bearer(headers)?;
    if api_key::looks_like_key(credential) {
        return Err(Error::forbidden(
            "api_key_not_allowed",
            "the chat hub takes a workspace token or a widget visitor token, not an API key",
        ));
    }
    if state.jwt.decode_visitor(credential).is_ok() {
        let visitor = Visitor::authenticate(state, credential).await?;
        return Ok(Grant {
            who: Participant::Visitor(visitor.identity()),
            expires_at: visitor.expires_at,
        });
    }
    let (actor, claims) = workspace_member(state, credential).await?;
    grant(state, actor, claims.exp, claims.ver).await
}

async fn grant(
    state: &AppState,
    actor: Actor,
    expires_at: i64,
    token_version: i32,
) -> Result<Grant> {
    if !actor.may(Permission::HandleConversations) {
        return Err(Error::forbidden(
            "owner_only",
            "only members who handle conversations may connect",
        ));
    }
    let user_id = actor.member_id()?;
    let (workspace_id, role) = (actor.workspace_id, actor.role());
    let agent_id = actions::agent_id(state, actor).await?;
    Ok(Grant {
        who: Participant::Agent(AgentIdentity {
            workspace_id,
            user_id,
            agent_id,
            role,
            token_version,
        }),
        expires_at,
    })
}

#[derive(Deserialize)]
pub struct ConnectQuery {
    id: Option<String>,
    access_token: Option<String>,
}

/// `GET /hubs/chat?id=<connectionToken>`: the WebSocket.
pub async fn connect(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(query): Query<ConnectQuery>,
    upgrade: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
) -> Result<Response> {
    refuse_token_in_url(query.access_token.as_ref())?;
    refuse_while_draining(&state)?;
    let upgrade = upgrade.map_err(|_| {
        Error::bad_request(
            "websocket_required",
            "this endpoint is a WebSocket: POST /hubs/chat/negotiate, then connect with ?id=<connectionToken>",
        )
    })?;
    let grant = match query.id.as_deref() {
        Some(token) => redeem(&state, token).await?,
        None => identify(&state, &headers).await?,
    };
    // Still allowed now (the token may be a minute old): the same checks as every call.
    match &grant.who {
        Participant::Agent(agent) => {
            crate::authz::current_member(
                &state,
                agent.user_id,
                agent.workspace_id,
                agent.token_version,
            )
            .await?;
        }
        Participant::Visitor(visitor) => {
            Visitor::of_connection(&state, visitor).await?;
        }
    }
    // A visitor's tabs or an agent's devices, not a script's loop: one credential cannot
    // fill the workspace's share, and the place is taken before the upgrade.
    let limits = Limits {
        per_workspace: state.settings.application.hub_max_connections_per_workspace,
        per_credential: match grant.who {
            Participant::Agent(_) => MAX_CONNECTIONS_PER_AGENT,
            Participant::Visitor(_) => MAX_CONNECTIONS_PER_VISITOR,
        },
    };
    let mailbox = state
        .hub
        .registry()
        .reserve(grant.who, limits)
        .map_err(|_| Error::TooManyRequests {
            retry_after: Duration::from_secs(30),
        })?;
    Ok(upgrade
        // Buffers sized for chat records, not tungstenite's 128 KiB defaults: an idle
        // connection then costs the process a few KiB instead of a quarter of a MiB.
        .read_buffer_size(READ_BUFFER_BYTES)
        .write_buffer_size(0)
        // What the hub sends is bounded by what it may carry (a ticket's 50 000-character
        // description, an email's HTML), not by what a client may send: a smaller cap here
        // would drop every connection an event that size is sent to. Memory stays bounded by
        // the connection's queue of records.
        .max_write_buffer_size(usize::MAX)
        .max_message_size(MAX_MESSAGE_BYTES)
        .max_frame_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| connection::serve(state, grant, mailbox, socket)))
}

async fn redeem(state: &AppState, token: &str) -> Result<Grant> {
    // "connection token not found": unknown, expired, or not of the form negotiate gives.
    const UNKNOWN: Error = Error::NotFound("connection token");
    if !tokens::well_formed(token) {
        return Err(UNKNOWN);
    }
    match state.hub.tokens().redeem(token).await {
        // The credential it was negotiated with expired meanwhile: nothing to serve.
        Ok(Some(grant)) if grant.expires_at <= time::OffsetDateTime::now_utc().unix_timestamp() => {
            Err(Error::Unauthorized(
                "the token this connection was negotiated with has expired; negotiate again with a new one",
            ))
        }
        Ok(Some(grant)) => Ok(grant),
        Ok(None) => Err(UNKNOWN),
        Err(TokenError::Reused) => Err(Error::conflict(
            "connection_token_used",
            "this connection token was already used; negotiate again",
        )),
        Err(TokenError::Unavailable(_)) => Err(Error::Unavailable(
            "the chat hub cannot check connection tokens right now; try again shortly",
        )),
    }
}
