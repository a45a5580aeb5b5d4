//! Black-box tests of the worker against the real API, PostgreSQL, Redis and an SMTP server.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test and benchmark harness: a failure here is a failed run, with its message"
)]

mod harness;

mod dashboard_browser;
mod deleted_files;
mod email_replies;
mod emails;
mod event_retention;
mod faults;
mod janitor;
mod notifications;
mod password_reset;
mod probes;
mod rating_requests;
mod relay;
mod reports;
mod reports_browser;
mod spares;
mod team;
mod webhooks;
mod workspace_smtp;
