//! The email channel: customers write to the workspace's support address, agents answer from
//! the inbox, and replies thread both ways.
//!
//! - `parse`: a received message read once (MIME, charsets, HTML sanitised, noise, bounces,
//!   SPF/DKIM/DMARC results).
//! - `quotes`: a reply's new words apart from the history it quotes.
//! - `address`: forwarding addresses, reply tokens, subject references, our Message-IDs.
//! - `threading`: which conversation a message continues.
//! - `receive`: a message into the inbox (or dropped, with the reason).
//! - `outgoing`: an agent's reply on an email conversation, queued to be sent.
//! - `inbound`: `POST /inbound/email`, for the operator's MTA (`supportdesk mail receive`
//!   is the same for a pipe transport).
//! - `settings`: `GET|PUT /api/settings/email`; `mailbox` the IMAP mailbox in it, its password
//!   sealed by `supportdesk_core::sealed_credentials`; `imap` watches the mailboxes (IDLE), taking new mail as `receive`
//!   does; `smtp` the workspace's own outgoing server, and its test email.
//! - `details`: the email side of a message as the API shows it.

pub mod address;
pub mod details;
pub mod imap;
mod inbound;
pub mod mailbox;
pub mod outgoing;
pub mod parse;
pub mod quotes;
pub mod receive;
pub mod settings;
pub mod smtp;
pub mod threading;

use axum::extract::DefaultBodyLimit;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

pub use receive::{MAX_RAW_BYTES, Receipt};

/// `GET|PUT /api/settings/email` and `POST /api/settings/email/test` (Owners).
pub fn settings_router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(settings::get, settings::put))
        .routes(routes!(smtp::send_test))
        .require(state, Rule::members(Permission::ManageSettings))
}

/// `POST /inbound/email`: the MTA's secret is its credential.
pub fn inbound_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(inbound::inbound))
        .layer(DefaultBodyLimit::max(MAX_RAW_BYTES))
}
