//! Black-box tests over HTTP against the real router, PostgreSQL and Redis.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test and benchmark harness: a failure here is a failed run, with its message"
)]

mod helpers;

mod agents;
mod api_keys;
mod attachments_browser;
mod auth_login;
mod auth_me;
mod auth_register;
mod auth_tokens;
mod change_email;
mod citus;
mod dashboard_resync;
mod email_verification;
mod event_numbering;
mod event_order;
mod events;
mod http_conventions;
mod invitations;
mod operations;
mod permissions;
mod process;
mod profile_and_settings;
mod secrets_at_rest;
mod spare_schemas;
mod tenancy;
mod tenant_baseline;
mod workspaces;

// Conversations, tickets and canned responses.
mod business_hours;
mod canned_fallback_checks;
mod canned_responses;
mod contacts;
mod conversations;
mod csat;
mod helpers_conversations;
mod inbox;
mod list_plans;
mod message_limits;
mod tickets;

// Hardening: findings of the security review.
mod abuse_limits;
mod api_key_limits;
mod list_pages;
mod openapi_contract;
mod password_reset;
mod replica_consistency;
mod reports;

// The tenant read path.
mod pooler;
mod roster;
mod text_input;

// The chat hub.
mod helpers_hub;
mod hub;
mod hub_access;
mod hub_admission;
mod hub_browser_client;
mod hub_msgpack;
mod hub_official_client;
mod hub_python_client;

// The chat widget.
mod attachments;
mod attachments_s3;
mod helpers_attachments;
mod helpers_widget;
mod upload_memory;
mod widget_browser;
mod widget_hub;
mod widget_sessions;
mod widget_settings;
mod widget_trust;
mod widget_visitors;

// The email channel.
mod audit_browser;
mod audit_log;
mod email_browser;
mod email_channel;
mod email_clients;
mod email_imap;
mod email_sending;
mod helpers_email;
mod rating_link_browser;
mod rating_links;
mod webhooks;
mod webhooks_browser;

// Search, labels and saved views.
mod labels;
mod search;
mod search_browser;
mod views;
