//! Support Desk: a multi-tenant customer-support platform.
//!
//! One module per capability (`auth`, `workspaces`, ...), each owning its routes, SQL and
//! types, plus the shared edges: configuration, errors, HTTP plumbing, database, telemetry.

pub mod agents;
pub mod api_keys;
pub mod auth;
pub mod authz;
pub mod canned_responses;
pub mod cli;
pub mod config;
pub mod conversations;
pub mod db;
pub mod email_address;
pub mod email_tokens;
pub mod error;
pub mod extract;
pub mod health;
pub mod http;
pub mod inbox;
pub mod invitations;
pub mod migrate;
pub mod openapi;
pub mod outbox;
pub mod pagination;
pub mod rate_limit;
pub mod startup;
pub mod state;
pub mod telemetry;
pub mod tenancy;
pub mod tickets;
pub mod workspace_settings;
pub mod workspaces;
