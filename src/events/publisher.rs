//! After commit: a transaction's recorded events reach this process's subscribers (the chat
//! hub today), synchronously and in commit order per writer. A subscriber must not block:
//! the hub hands events to its own queues. Durable subscribers (integrations) read the log
//! itself at their own pace, from the last seq they handled.

use std::sync::Arc;

use uuid::Uuid;

use super::catalogue::Recorded;

/// Hears every committed event of this process.
pub trait Subscriber: Send + Sync {
    fn committed(&self, workspace_id: Uuid, events: &[Recorded]);
}

#[derive(Clone, Default)]
pub struct Publisher {
    subscribers: Vec<Arc<dyn Subscriber>>,
}

impl Publisher {
    pub fn new(subscribers: Vec<Arc<dyn Subscriber>>) -> Self {
        Self { subscribers }
    }

    /// Hands events just committed to every subscriber. Call it after the commit.
    pub fn committed(&self, workspace_id: Uuid, events: &[Recorded]) {
        if events.is_empty() {
            return;
        }
        metrics::counter!("events_recorded_total").increment(events.len() as u64);
        for subscriber in &self.subscribers {
            subscriber.committed(workspace_id, events);
        }
    }
}
