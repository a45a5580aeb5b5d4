//! Each workspace's usual first reply, in seconds of business time, as the chat widget tells
//! it (`widget::reply_time` measures it), kept 10 minutes per API process. Only the keeping is
//! here, below the application state that holds it, as the membership cache is.

use std::time::Duration;

use uuid::Uuid;

const KEPT: Duration = Duration::from_secs(600);

/// Workspace id -> its typical reply (`None`: too few answers to tell).
pub struct ReplyTimes {
    cache: moka::future::Cache<Uuid, Option<i64>>,
}

impl Default for ReplyTimes {
    fn default() -> Self {
        Self {
            cache: moka::future::Cache::builder()
                .max_capacity(100_000)
                .time_to_live(KEPT)
                .build(),
        }
    }
}

impl ReplyTimes {
    /// What is known of the workspace, if it was measured in the last 10 minutes.
    pub async fn known(&self, workspace_id: Uuid) -> Option<Option<i64>> {
        self.cache.get(&workspace_id).await
    }

    pub async fn keep(&self, workspace_id: Uuid, typical: Option<i64>) {
        self.cache.insert(workspace_id, typical).await;
    }

    /// The workspace's business hours changed: measure again.
    pub async fn forget(&self, workspace_id: Uuid) {
        self.cache.invalidate(&workspace_id).await;
    }
}
