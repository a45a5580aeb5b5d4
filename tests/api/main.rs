//! Black-box tests over HTTP against the real router, PostgreSQL and Redis.

mod helpers;

mod auth_login;
mod auth_me;
mod auth_register;
mod auth_tokens;
mod email_verification;
mod http_conventions;
mod operations;
mod process;
mod tenancy;
mod workspaces;

// Conversations, tickets and canned responses.
mod canned_responses;
mod conversations;
mod helpers_conversations;
mod list_plans;
mod tickets;
