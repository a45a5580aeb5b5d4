//! Emails: what they say (`render`, `conversation`, `smtp_test`) and how they leave
//! (`transport`).

pub mod conversation;
pub mod notifications;
pub mod rating_request;
pub mod render;
pub mod smtp_test;
pub mod transport;
pub mod webhook_disabled;
