//! How the inbox works in a workspace (`settings.inbox`): choices an Owner makes for the
//! whole team. Stored as JSON; absent keys take their defaults, so adding one needs no
//! migration of existing workspaces.

use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use sqlx::types::Json;
use supportdesk_core::tenancy::TenantSchema;
use utoipa::ToSchema;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct InboxSettings {
    /// An agent's reply to an unassigned conversation assigns it to them.
    pub auto_assign_on_reply: bool,
    /// A customer whose conversation is resolved is asked to rate it, 1 to 5 (CSAT): the
    /// widget asks while the conversation is theirs to reopen.
    pub csat_on_resolve: bool,
}

impl Default for InboxSettings {
    fn default() -> Self {
        Self {
            auto_assign_on_reply: true,
            csat_on_resolve: true,
        }
    }
}

/// Each field: absent leaves it as it is.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InboxSettingsPatch {
    auto_assign_on_reply: Option<bool>,
    csat_on_resolve: Option<bool>,
}

impl InboxSettings {
    pub fn apply(&mut self, patch: InboxSettingsPatch) {
        if let Some(value) = patch.auto_assign_on_reply {
            self.auto_assign_on_reply = value;
        }
        if let Some(value) = patch.csat_on_resolve {
            self.csat_on_resolve = value;
        }
    }
}

/// The tenant's inbox settings.
pub async fn load(conn: &mut PgConnection, schema: &TenantSchema) -> sqlx::Result<InboxSettings> {
    let Json(settings) = sqlx::query_scalar(schema.sql("SELECT inbox FROM {schema}.settings"))
        .fetch_one(conn)
        .await?;
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_keys_take_their_defaults() {
        let settings: InboxSettings = serde_json::from_str("{}").unwrap();
        assert!(settings.auto_assign_on_reply);
        assert!(settings.csat_on_resolve);
        let mut off = settings;
        off.apply(serde_json::from_str(r#"{"autoAssignOnReply": false}"#).unwrap());
        assert!(!off.auto_assign_on_reply);
        off.apply(InboxSettingsPatch::default());
        assert!(!off.auto_assign_on_reply);
        assert!(off.csat_on_resolve);
        off.apply(serde_json::from_str(r#"{"csatOnResolve": false}"#).unwrap());
        assert!(!off.csat_on_resolve && !off.auto_assign_on_reply);
    }
}
