//! Support Desk: a multi-tenant customer-support platform.
//!
//! One module per capability (`auth`, `workspaces`, ...), each owning its routes, SQL and
//! types, plus the shared edges: errors, HTTP plumbing. What the worker shares with the API
//! (configuration, database, outbox, tenant schemas, telemetry) is in `supportdesk_core`.

pub mod agents;
pub mod api_keys;
pub mod attachments;
pub mod audit;
pub mod auth;
pub mod authz;
pub mod business_hours;
pub mod canned_responses;
pub mod chat;
pub mod cli;
pub mod contacts;
pub mod conversations;
pub mod cors;
pub mod credentials;
pub mod csv_export;
pub mod email_address;
pub mod email_channel;
pub mod error;
pub mod events;
pub mod extract;
pub mod health;
pub mod http;
pub mod hub;
pub mod inbox;
pub mod invitations;
pub mod labels;
pub mod memberships;
pub mod migrate;
pub mod notifications;
pub mod openapi;
pub mod pagination;
pub mod rate_limit;
pub mod reply_times;
pub mod reports;
pub mod search;
pub mod startup;
pub mod state;
pub mod tenancy;
pub mod tickets;
pub mod views;
pub mod webhooks;
pub mod widget;
pub mod workspace_settings;
pub mod workspaces;
