//! Secret API keys: shown once, stored hashed, accepted on agent management only, refused
//! at once on every replica after regeneration or revocation.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app, spawn_replica, unique_email};

#[tokio::test]
async fn a_key_is_shown_once_and_manages_agents_but_no_owner() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let created = app
        .post_json(
            "/api/settings/api-keys",
            &json!({"name": " CRM sync "}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let created: Value = created.json().await.unwrap();
    let key = created["key"].as_str().unwrap();
    assert!(key.starts_with("sdk_") && key.len() == 53, "{key}");
    assert_eq!(created["name"], "CRM sync");
    assert_eq!(created["prefix"], &key[..12]);
    assert_eq!(created["createdBy"], owner.user_id.to_string());
    assert_eq!(created["lastUsedAt"], Value::Null);

    let listed: Value = app
        .get("/api/settings/api-keys", Some(&owner.workspace_token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["apiKeys"].as_array().unwrap().len(), 1);
    assert!(listed["apiKeys"][0].get("key").is_none());
    assert!(!listed.to_string().contains(&key[12..]), "never the secret");

    // Agent management with the key, like an Owner.
    assert_eq!(
        app.get("/api/agents", Some(key)).await.status(),
        StatusCode::OK
    );
    let email = unique_email();
    let invited = app.invite(key, &email, "agent").await;
    assert_eq!(invited.status(), StatusCode::CREATED);
    let invitation: Value = invited.json().await.unwrap();
    assert_eq!(invitation["invitation"]["email"], email);
    let ann = app.member(&owner, "agent").await;
    let deactivated = app
        .post_json(
            &format!("/api/agents/{}/deactivate", ann.agent_id),
            &json!({}),
            Some(key),
        )
        .await;
    assert_eq!(deactivated.status(), StatusCode::OK);
    let role = app
        .put_json(
            &format!("/api/agents/{}/role", ann.agent_id),
            &json!({"role": "agent"}),
            Some(key),
        )
        .await;
    assert_eq!(role.status(), StatusCode::OK);
    // But never the Owner role (see `api_key_limits`).
    assert_problem(
        app.put_json(
            &format!("/api/agents/{}/role", ann.agent_id),
            &json!({"role": "admin"}),
            Some(key),
        )
        .await,
        StatusCode::FORBIDDEN,
        "api_key_cannot_manage_owners",
    )
    .await;

    // Nothing else: not settings, not keys, not the workspace.
    for path in [
        "/api/settings/api-keys",
        "/api/settings",
        "/api/workspace",
        "/api/me/profile",
        "/api/invitations",
    ] {
        assert_problem(
            app.get(path, Some(key)).await,
            StatusCode::FORBIDDEN,
            "api_key_not_allowed",
        )
        .await;
    }
    assert_problem(
        app.post_json(
            "/api/settings/api-keys",
            &json!({"name": "more"}),
            Some(key),
        )
        .await,
        StatusCode::FORBIDDEN,
        "api_key_not_allowed",
    )
    .await;

    // Use is recorded, but not on every request.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let last_used = loop {
        let listed: Value = app
            .get("/api/settings/api-keys", Some(&owner.workspace_token))
            .await
            .json()
            .await
            .unwrap();
        if let Some(at) = listed["apiKeys"][0]["lastUsedAt"].as_str() {
            break at.to_owned();
        }
        assert!(std::time::Instant::now() < deadline, "lastUsedAt never set");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    for _ in 0..5 {
        app.get("/api/agents", Some(key)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let listed: Value = app
        .get("/api/settings/api-keys", Some(&owner.workspace_token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["apiKeys"][0]["lastUsedAt"], last_used);
}

#[tokio::test]
async fn regenerating_or_revoking_refuses_the_old_secret_at_once_on_every_replica() {
    let app = spawn_app().await;
    let replica = spawn_replica(&app).await;
    let owner = app.owner_with_workspace("acme").await;
    let (id, old) = app.api_key(&owner.workspace_token).await;
    let replica_status = |key: String| {
        let request = app
            .client
            .get(format!("{}/api/agents", replica.address))
            .bearer_auth(key);
        async move { request.send().await.unwrap().status() }
    };
    assert_eq!(replica_status(old.clone()).await, StatusCode::OK);

    let regenerated = app
        .post_json(
            &format!("/api/settings/api-keys/{id}/regenerate"),
            &json!({}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(regenerated.status(), StatusCode::OK);
    let body: Value = regenerated.json().await.unwrap();
    let new = body["key"].as_str().unwrap().to_owned();
    assert_ne!(new, old);
    assert_eq!(body["id"], id);
    assert!(body["regeneratedAt"].is_string());

    assert_problem(
        app.get("/api/agents", Some(&old)).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    assert_eq!(replica_status(old).await, StatusCode::UNAUTHORIZED);
    assert_eq!(replica_status(new.clone()).await, StatusCode::OK);

    assert_eq!(
        app.delete(
            &format!("/api/settings/api-keys/{id}"),
            Some(&owner.workspace_token)
        )
        .await
        .status(),
        StatusCode::NO_CONTENT
    );
    assert_eq!(replica_status(new.clone()).await, StatusCode::UNAUTHORIZED);
    for path in [
        format!("/api/settings/api-keys/{id}"),
        "/api/settings/api-keys/not-a-uuid".into(),
    ] {
        assert_problem(
            app.delete(&path, Some(&owner.workspace_token)).await,
            StatusCode::NOT_FOUND,
            "not_found",
        )
        .await;
    }
}

#[tokio::test]
async fn malformed_and_foreign_keys_are_refused() {
    let app = spawn_app().await;
    let acme = app.owner_with_workspace("acme").await;
    let globex = app.owner_with_workspace("globex").await;
    let (globex_key_id, globex_key) = app.api_key(&globex.workspace_token).await;
    let (_, acme_key) = app.api_key(&acme.workspace_token).await;

    // A typo fails the checksum; a truncated or made-up key is no key.
    let mut typo = acme_key.clone().into_bytes();
    typo[20] = if typo[20] == b'x' { b'y' } else { b'x' };
    for bad in [
        String::from_utf8(typo).unwrap(),
        acme_key[..40].to_owned(),
        format!("sdk_{}", "A".repeat(49)),
    ] {
        assert_problem(
            app.get("/api/agents", Some(&bad)).await,
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        )
        .await;
    }
    // A key sees its own workspace only; another workspace's ids name nothing.
    let agents: Value = app
        .get("/api/agents", Some(&acme_key))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(agents["agents"][0]["userId"], acme.user_id.to_string());
    let globex_owner_agent = app.agent_id_of(&globex_key, globex.user_id).await;
    assert_problem(
        app.post_json(
            &format!("/api/agents/{globex_owner_agent}/deactivate"),
            &json!({}),
            Some(&acme_key),
        )
        .await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    for response in [
        app.post_json(
            &format!("/api/settings/api-keys/{globex_key_id}/regenerate"),
            &json!({}),
            Some(&acme.workspace_token),
        )
        .await,
        app.delete(
            &format!("/api/settings/api-keys/{globex_key_id}"),
            Some(&acme.workspace_token),
        )
        .await,
    ] {
        assert_problem(response, StatusCode::NOT_FOUND, "not_found").await;
    }
    assert_eq!(
        app.get("/api/agents", Some(&globex_key)).await.status(),
        StatusCode::OK
    );
    // A deleted workspace's keys stop working with it.
    assert_eq!(
        app.delete("/api/workspace", Some(&globex.workspace_token))
            .await
            .status(),
        StatusCode::ACCEPTED
    );
    assert_problem(
        app.get("/api/agents", Some(&globex_key)).await,
        StatusCode::FORBIDDEN,
        "workspace_deleted",
    )
    .await;
}

#[tokio::test]
async fn key_names_are_validated_and_the_number_of_keys_is_bounded() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    for body in [json!({"name": ""}), json!({"name": "x".repeat(101)})] {
        assert_problem(
            app.post_json(
                "/api/settings/api-keys",
                &body,
                Some(&owner.workspace_token),
            )
            .await,
            StatusCode::BAD_REQUEST,
            "validation_failed",
        )
        .await;
    }
    assert_problem(
        app.post_json(
            "/api/settings/api-keys",
            &json!({}),
            Some(&owner.workspace_token),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "invalid_body",
    )
    .await;
    for _ in 0..25 {
        app.api_key(&owner.workspace_token).await;
    }
    assert_problem(
        app.post_json(
            "/api/settings/api-keys",
            &json!({"name": "one too many"}),
            Some(&owner.workspace_token),
        )
        .await,
        StatusCode::CONFLICT,
        "api_key_limit",
    )
    .await;
    assert_eq!(app.count("api_keys").await, 25);
}
