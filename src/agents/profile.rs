//! `GET/PATCH /api/me/profile`: the caller's own face in this workspace (display name,
//! avatar) and how they want to be notified. Any member, own record only.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use sqlx::PgExecutor;
use sqlx::types::Json;
use supportdesk_core::tenancy::TenantSchema;
use utoipa::ToSchema;

use crate::agents::record::{Agent, COLUMNS};
use crate::authz::Actor;
use crate::error::responses::MemberErrors;
use crate::error::{Error, FieldChecks, Result};
use crate::events;
use crate::events::catalogue::{AgentChange, AgentChanged, DomainEvent};
use crate::extract::AppJson;
use crate::state::AppState;
use crate::tenancy::context::{Tenant, TenantTx};

const DISPLAY_NAME_MAX_CHARS: usize = 100;
pub const URL_MAX_LEN: usize = 2048;

/// Which notifications the agent receives. Absent keys take their defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct NotificationPreferences {
    /// Email when a conversation is assigned to me.
    pub email_on_assignment: bool,
    /// Email when a new conversation arrives unassigned.
    pub email_on_new_conversation: bool,
    /// Email when a contact replies in a conversation assigned to me.
    pub email_on_contact_reply: bool,
    /// Email when a teammate mentions me (`@Display Name`) in a private note.
    pub email_on_mention: bool,
    /// Browser notifications while the dashboard is open.
    pub desktop: bool,
    /// A sound in the dashboard for new conversations, and for messages in conversations
    /// assigned to me or unassigned.
    pub sound: bool,
}

impl Default for NotificationPreferences {
    fn default() -> Self {
        Self {
            email_on_assignment: true,
            email_on_new_conversation: false,
            email_on_contact_reply: true,
            email_on_mention: true,
            desktop: true,
            sound: false,
        }
    }
}

/// A partial update of [`NotificationPreferences`]: absent keys stay as they are.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NotificationPreferencesPatch {
    email_on_assignment: Option<bool>,
    email_on_new_conversation: Option<bool>,
    email_on_contact_reply: Option<bool>,
    email_on_mention: Option<bool>,
    desktop: Option<bool>,
    sound: Option<bool>,
}

impl NotificationPreferences {
    fn apply(&mut self, patch: NotificationPreferencesPatch) {
        let fields = [
            (&mut self.email_on_assignment, patch.email_on_assignment),
            (
                &mut self.email_on_new_conversation,
                patch.email_on_new_conversation,
            ),
            (
                &mut self.email_on_contact_reply,
                patch.email_on_contact_reply,
            ),
            (&mut self.email_on_mention, patch.email_on_mention),
            (&mut self.desktop, patch.desktop),
            (&mut self.sound, patch.sound),
        ];
        for (field, value) in fields {
            if let Some(value) = value {
                *field = value;
            }
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    #[serde(flatten)]
    pub agent: Agent,
    pub notification_preferences: NotificationPreferences,
    /// Enter sends a reply and Shift+Enter makes a new line (true, the default), or Enter
    /// makes a new line and Ctrl/Cmd+Enter sends (false).
    pub send_with_enter: bool,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProfilePatch {
    #[schema(example = "Ann from Acme")]
    display_name: Option<String>,
    /// An http(s) URL, or null to remove the avatar.
    #[serde(default, with = "serde_with::rust::double_option")]
    #[schema(value_type = Option<String>, example = "https://cdn.example.com/ann.png")]
    avatar_url: Option<Option<String>>,
    notification_preferences: Option<NotificationPreferencesPatch>,
    send_with_enter: Option<bool>,
}

/// A [`ProfilePatch`], checked; `None` leaves a field as it is.
struct ProfileChanges {
    display_name: Option<String>,
    /// `Some(None)` removes the avatar.
    avatar_url: Option<Option<String>>,
    notification_preferences: Option<NotificationPreferencesPatch>,
    send_with_enter: Option<bool>,
}

impl TryFrom<ProfilePatch> for ProfileChanges {
    type Error = Error;

    fn try_from(patch: ProfilePatch) -> Result<Self> {
        let mut checks = FieldChecks::default();
        let display_name = patch.display_name.map(|name| name.trim().to_owned());
        if let Some(name) = &display_name
            && (name.is_empty() || name.chars().count() > DISPLAY_NAME_MAX_CHARS)
        {
            checks.add(
                "displayName",
                format!("must be 1 to {DISPLAY_NAME_MAX_CHARS} characters"),
            );
        }
        let avatar_url = match patch.avatar_url {
            Some(Some(url)) => checks.check("avatarUrl", web_url(&url)).map(Some),
            other => other,
        };
        if !checks.is_empty() {
            return Err(checks.failed());
        }
        Ok(Self {
            display_name,
            avatar_url,
            notification_preferences: patch.notification_preferences,
            send_with_enter: patch.send_with_enter,
        })
    }
}

/// The caller's profile in this workspace.
#[utoipa::path(
    get, path = "/api/me/profile", tag = "team",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's profile", body = Profile),
        MemberErrors,
    )
)]
pub async fn get(mut tenant: Tenant) -> Result<AppJson<Profile>> {
    let user_id = tenant.actor.member_id()?;
    let (conn, schema) = tenant.parts();
    Ok(AppJson(load(conn, schema, user_id).await?))
}

/// Update the caller's display name, avatar, notification preferences or how Enter works
/// in the reply box.
#[utoipa::path(
    patch, path = "/api/me/profile", tag = "team",
    security(("bearer" = [])),
    request_body = ProfilePatch,
    responses(
        (status = 200, description = "The updated profile", body = Profile),
        MemberErrors,
    )
)]
pub async fn update(
    State(state): State<AppState>,
    actor: Actor,
    AppJson(patch): AppJson<ProfilePatch>,
) -> Result<AppJson<Profile>> {
    let user_id = actor.member_id()?;
    let ProfileChanges {
        display_name,
        avatar_url,
        notification_preferences,
        send_with_enter,
    } = ProfileChanges::try_from(patch)?;
    let (display_name_given, avatar_given) = (display_name.is_some(), avatar_url.is_some());

    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    let Json(mut preferences): Json<NotificationPreferences> = sqlx::query_scalar(schema.sql(
        "SELECT notification_preferences FROM {schema}.agent_profiles
          WHERE user_id = $1 FOR UPDATE",
    ))
    .bind(user_id)
    .fetch_one(&mut *conn)
    .await?;
    if let Some(patch) = notification_preferences {
        preferences.apply(patch);
    }
    sqlx::query(schema.sql(
        "UPDATE {schema}.agent_profiles
            SET display_name = coalesce($2, display_name),
                avatar_url = CASE WHEN $3 THEN $4 ELSE avatar_url END,
                notification_preferences = $5,
                send_with_enter = coalesce($6, send_with_enter),
                updated_at = now()
          WHERE user_id = $1",
    ))
    .bind(user_id)
    .bind(display_name)
    .bind(avatar_url.is_some())
    .bind(avatar_url.flatten())
    .bind(Json(&preferences))
    .bind(send_with_enter)
    .execute(&mut *conn)
    .await?;
    let profile = load(&mut *conn, schema, user_id).await?;
    let shown_changed = display_name_given || avatar_given;
    let changed = shown_changed.then(|| {
        DomainEvent::AgentChanged(Box::new(AgentChanged {
            change: AgentChange::Profile,
            agent: profile.agent.clone(),
        }))
    });
    events::record(&state, tenant, changed.into_iter().collect()).await?;
    Ok(AppJson(profile))
}

/// The member's agent record and preferences, in one query.
async fn load<'e>(
    db: impl PgExecutor<'e>,
    schema: &TenantSchema,
    user_id: uuid::Uuid,
) -> Result<Profile> {
    #[derive(sqlx::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        agent: Agent,
        notification_preferences: Json<NotificationPreferences>,
        send_with_enter: bool,
    }
    let row: Row = sqlx::query_as(schema.sql(&format!(
        "SELECT {COLUMNS}, notification_preferences, send_with_enter FROM {{schema}}.agent_profiles
          WHERE user_id = $1"
    )))
    .bind(user_id)
    .fetch_optional(db)
    .await?
    .ok_or_else(|| Error::Internal(anyhow::anyhow!("member {user_id} has no profile")))?;
    Ok(Profile {
        agent: row.agent,
        notification_preferences: row.notification_preferences.0,
        send_with_enter: row.send_with_enter,
    })
}

/// An absolute http(s) URL of reasonable length, as given.
pub fn web_url(candidate: &str) -> Result<String, String> {
    let candidate = candidate.trim();
    if candidate.len() > URL_MAX_LEN {
        return Err(format!("must be at most {URL_MAX_LEN} characters"));
    }
    match url::Url::parse(candidate) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.has_host() => {
            Ok(candidate.to_owned())
        }
        _ => Err("must be an absolute http or https URL".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_urls_must_be_absolute_http() {
        assert!(web_url("https://cdn.example.com/a.png").is_ok());
        assert!(web_url(" http://example.com ").is_ok());
        for bad in [
            "javascript:alert(1)",
            "data:image/png;base64,AAAA",
            "/relative.png",
            "ftp://example.com/a.png",
            "https://",
            "",
        ] {
            assert!(web_url(bad).is_err(), "{bad}");
        }
        assert!(web_url(&format!("https://e.com/{}", "a".repeat(URL_MAX_LEN))).is_err());
    }

    #[test]
    fn a_preferences_patch_changes_only_what_it_names() {
        let mut preferences = NotificationPreferences::default();
        let patch: NotificationPreferencesPatch =
            serde_json::from_str(r#"{"desktop": false}"#).unwrap();
        preferences.apply(patch);
        assert!(!preferences.desktop);
        assert_eq!(
            preferences.email_on_assignment,
            NotificationPreferences::default().email_on_assignment
        );
        assert!(serde_json::from_str::<NotificationPreferencesPatch>(r#"{"sms": true}"#).is_err());
        // Stored preferences missing a key read as its default.
        let stored: NotificationPreferences = serde_json::from_str("{}").unwrap();
        assert_eq!(stored, NotificationPreferences::default());
    }
}
