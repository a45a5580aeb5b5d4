//! What the API and the worker share about webhook endpoints: the signing secret's form
//! (`secret`) and the address guard (`guard`) that keeps endpoints off private networks.

pub mod guard;
pub mod secret;
