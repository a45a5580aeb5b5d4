//! What proves who a caller is, and nothing about what the caller may do: signed tokens
//! (`jwt`), password hashes (`password`), the form of API key secrets (`api_key`) and the
//! chat widget's identity secrets (`widget_identity`).
//!
//! A module of its own below everything that uses them: the shared state holds the keys and
//! the hasher, the `auth` routes issue and check them, `authz` authenticates requests with
//! them, and none of these needs the others to do so.

pub mod api_key;
pub mod jwt;
pub mod password;
pub mod widget_identity;
