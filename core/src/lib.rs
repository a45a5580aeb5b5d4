//! What the Support Desk API (`supportdesk`) and worker (`supportdesk-worker`) share, and
//! nothing of HTTP: settings, the database pools, the outbox and the messages it carries, the
//! keys of emailed tokens, object storage, tenant schemas with their migrations and spares, telemetry, and the
//! checks behind the health probes.
//!
//! Why a crate of its own: the worker needs these and none of the API's web stack (axum,
//! utoipa, argon2, moka). With them here the worker builds and links only what it uses, and
//! the dependency graph shows the architecture: both processes on top of this one.

pub mod business_hours;
pub mod config;
pub mod db;
pub mod email_tokens;
pub mod event_log;
pub mod health;
pub mod locks;
pub mod migrate;
pub mod outbox;
pub mod pubsub;
pub mod role;
pub mod sealed_credentials;
pub mod search;
pub mod shutdown;
pub mod storage;
pub mod telemetry;
pub mod tenancy;
pub mod webhooks;
