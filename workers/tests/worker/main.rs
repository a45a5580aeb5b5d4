//! Black-box tests of the worker against the real API, PostgreSQL, Redis and an SMTP server.

mod harness;

mod emails;
mod faults;
mod janitor;
mod password_reset;
mod probes;
mod spares;
mod team;
