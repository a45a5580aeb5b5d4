//! Emails: what they say (`render`) and how they leave (`transport`).

pub mod notifications;
pub mod render;
pub mod transport;
