//! Black-box tests over HTTP against the real router, PostgreSQL and Redis.

mod helpers;
mod helpers_conversations;

mod auth_login;
mod auth_me;
mod auth_register;
mod auth_tokens;
mod canned_responses;
mod conversations;
mod email_verification;
mod http_conventions;
mod list_plans;
mod operations;
mod process;
mod tenancy;
mod tickets;
mod workspaces;
