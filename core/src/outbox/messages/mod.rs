//! What the worker reads to carry out an outbox message: for each kind of email, the row it
//! is about, if it is still worth sending, with its token re-derived from the row's nonce.
//!
//! The notification emails (`agent_digest`, `visitor_reply`) are about tenant rows instead,
//! and both processes use their statements: the API schedules, the worker claims and marks.
//!
//! The API issues these rows (`auth::verification`, `auth::password_reset`, `invitations`,
//! each in the transaction of the change that caused it); the reading is here, in the core
//! crate, because the worker needs it and none of the API's web stack.

pub mod agent_digest;
pub mod conversation_email;
pub mod invitation;
pub mod mailbox_failing;
pub mod password_reset;
pub mod rating_request;
pub mod verification;
pub mod visitor_reply;
pub mod webhook_disabled;
pub mod workspace;
pub mod workspace_smtp;

use crate::email_tokens::{EmailTokenKey, Purpose};

/// An email still worth sending, with its token re-derived from the row's nonce. Its `Debug`
/// leaves the token out: it is a live credential until used.
#[derive(Clone)]
pub struct PendingEmail {
    pub email: String,
    pub full_name: String,
    pub token: String,
}

impl std::fmt::Debug for PendingEmail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingEmail")
            .field("email", &self.email)
            .field("full_name", &self.full_name)
            .field("token", &"[redacted]")
            .finish()
    }
}

impl PendingEmail {
    /// The email to `email` for the token row whose `nonce` this is, re-deriving its token.
    fn new(
        key: &EmailTokenKey,
        purpose: Purpose,
        email: String,
        full_name: String,
        nonce: &[u8],
    ) -> Self {
        Self {
            email,
            full_name,
            token: key.token_for(purpose, nonce),
        }
    }
}
