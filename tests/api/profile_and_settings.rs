//! `/api/me/profile` (every member, own record) and `/api/settings` (Owners).

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app};

#[tokio::test]
async fn an_agent_edits_their_own_profile_only() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let ann = app.member(&owner, "agent").await;

    let profile: Value = app
        .get("/api/me/profile", Some(&ann.workspace_token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(profile["id"], ann.agent_id.to_string());
    assert_eq!(profile["displayName"], "Test User");
    assert_eq!(
        profile["notificationPreferences"],
        json!({"emailOnAssignment": true, "emailOnNewConversation": false,
               "emailOnContactReply": true, "emailOnMention": true, "desktop": true,
               "sound": false})
    );

    let updated = app
        .patch_json(
            "/api/me/profile",
            &json!({"displayName": " Ann from Acme ", "avatarUrl": "https://cdn.example.com/ann.png",
                    "notificationPreferences": {"desktop": false}}),
            Some(&ann.workspace_token),
        )
        .await;
    assert_eq!(updated.status(), StatusCode::OK);
    let updated: Value = updated.json().await.unwrap();
    assert_eq!(updated["displayName"], "Ann from Acme");
    assert_eq!(updated["avatarUrl"], "https://cdn.example.com/ann.png");
    assert_eq!(updated["notificationPreferences"]["desktop"], false);
    assert_eq!(
        updated["notificationPreferences"]["emailOnAssignment"],
        true
    );
    // The team sees it; the owner's own profile is untouched.
    let seen: Value = app
        .get(
            &format!("/api/agents/{}", ann.agent_id),
            Some(&owner.workspace_token),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(seen["displayName"], "Ann from Acme");
    let owners: Value = app
        .get("/api/me/profile", Some(&owner.workspace_token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(owners["displayName"], "Test User");
    assert_eq!(owners["avatarUrl"], Value::Null);

    // Absent leaves, null clears.
    let cleared: Value = app
        .patch_json(
            "/api/me/profile",
            &json!({"avatarUrl": null}),
            Some(&ann.workspace_token),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(cleared["avatarUrl"], Value::Null);
    assert_eq!(cleared["displayName"], "Ann from Acme");
}

#[tokio::test]
async fn invalid_profile_changes_are_refused_whole() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let before: Value = app
        .get("/api/me/profile", Some(&owner.workspace_token))
        .await
        .json()
        .await
        .unwrap();
    let problem = assert_problem(
        app.patch_json(
            "/api/me/profile",
            &json!({"displayName": "", "avatarUrl": "javascript:alert(1)"}),
            Some(&owner.workspace_token),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
    )
    .await;
    assert!(problem["errors"]["displayName"].is_array());
    assert!(problem["errors"]["avatarUrl"].is_array());
    for body in [
        json!({"displayname": "typo"}),
        json!({"notificationPreferences": {"sms": true}}),
        json!({"notificationPreferences": {"desktop": "yes"}}),
        json!({"displayName": 42}),
    ] {
        assert_problem(
            app.patch_json("/api/me/profile", &body, Some(&owner.workspace_token))
                .await,
            StatusCode::BAD_REQUEST,
            "invalid_body",
        )
        .await;
    }
    let after: Value = app
        .get("/api/me/profile", Some(&owner.workspace_token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(before, after);
}

#[tokio::test]
async fn owners_manage_branding_and_the_workspace_shows_it() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let settings: Value = app
        .get("/api/settings", Some(&owner.workspace_token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        settings["branding"],
        json!({"name": null, "color": null, "logoUrl": null, "widgetGreeting": null})
    );

    let updated = app
        .patch_json(
            "/api/settings",
            &json!({"branding": {"name": "Acme Help", "color": "#1F6FEB",
                                 "logoUrl": "https://acme.example/logo.svg",
                                 "widgetGreeting": "Hi! How can we help?"}}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(updated.status(), StatusCode::OK);
    let updated: Value = updated.json().await.unwrap();
    assert_eq!(updated["branding"]["color"], "#1f6feb");
    assert_ne!(updated["updatedAt"], settings["updatedAt"]);

    let partial: Value = app
        .patch_json(
            "/api/settings",
            &json!({"branding": {"widgetGreeting": null}}),
            Some(&owner.workspace_token),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(partial["branding"]["widgetGreeting"], Value::Null);
    assert_eq!(partial["branding"]["name"], "Acme Help");
    let workspace: Value = app
        .get("/api/workspace", Some(&owner.workspace_token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(workspace["branding"], partial["branding"]);

    let problem = assert_problem(
        app.patch_json(
            "/api/settings",
            &json!({"branding": {"color": "blue", "logoUrl": "/logo.png"}}),
            Some(&owner.workspace_token),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
    )
    .await;
    assert!(problem["errors"]["branding.color"].is_array(), "{problem}");
    assert!(
        problem["errors"]["branding.logoUrl"].is_array(),
        "{problem}"
    );
    assert_problem(
        app.patch_json(
            "/api/settings",
            &json!({"branding": {"font": "Comic Sans"}}),
            Some(&owner.workspace_token),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "invalid_body",
    )
    .await;
    let unchanged: Value = app
        .get("/api/settings", Some(&owner.workspace_token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(unchanged["branding"], partial["branding"]);

    let ann = app.member(&owner, "agent").await;
    assert_problem(
        app.patch_json(
            "/api/settings",
            &json!({"branding": {"name": "Hijacked"}}),
            Some(&ann.workspace_token),
        )
        .await,
        StatusCode::FORBIDDEN,
        "owner_only",
    )
    .await;
}
