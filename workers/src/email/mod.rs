//! Emails: what they say (`render`) and how they leave (`transport`).

pub mod conversation;
pub mod notifications;
pub mod render;
pub mod transport;
