//! A leaked API key must not take over a workspace: keys invite and manage agents, never
//! Owners (security review, finding 1). The refusal comes before the last-Owner rule, so a
//! key gets 403 whatever the state of the team.

use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{assert_problem, spawn_app, unique_email};

#[tokio::test]
async fn a_key_cannot_grant_change_deactivate_or_reactivate_the_owner_role() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let (_, key) = app.api_key(&owner.workspace_token).await;
    let owner_agent = app.agent_id_of(&owner.workspace_token, owner.user_id).await;
    let ann = app.member(&owner, "agent").await;

    // Inviting an Owner.
    assert_problem(
        app.invite(&key, &unique_email(), "admin").await,
        StatusCode::FORBIDDEN,
        "api_key_cannot_manage_owners",
    )
    .await;
    assert_eq!(app.count("invitations").await, 1, "only Ann's invitation");
    // Promoting an agent.
    assert_problem(
        app.put_json(
            &format!("/api/agents/{}/role", ann.agent_id),
            &json!({"role": "admin"}),
            Some(&key),
        )
        .await,
        StatusCode::FORBIDDEN,
        "api_key_cannot_manage_owners",
    )
    .await;
    // Demoting, deactivating the (last) Owner: 403, not 409 `last_owner`.
    assert_problem(
        app.put_json(
            &format!("/api/agents/{owner_agent}/role"),
            &json!({"role": "agent"}),
            Some(&key),
        )
        .await,
        StatusCode::FORBIDDEN,
        "api_key_cannot_manage_owners",
    )
    .await;
    assert_problem(
        app.post_json(
            &format!("/api/agents/{owner_agent}/deactivate"),
            &json!({}),
            Some(&key),
        )
        .await,
        StatusCode::FORBIDDEN,
        "api_key_cannot_manage_owners",
    )
    .await;

    // A second Owner, deactivated by the first: the key cannot bring them back either.
    let bob = app.member(&owner, "admin").await;
    let deactivated = app
        .post_json(
            &format!("/api/agents/{}/deactivate", bob.agent_id),
            &json!({}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(deactivated.status(), StatusCode::OK);
    assert_problem(
        app.post_json(
            &format!("/api/agents/{}/reactivate", bob.agent_id),
            &json!({}),
            Some(&key),
        )
        .await,
        StatusCode::FORBIDDEN,
        "api_key_cannot_manage_owners",
    )
    .await;

    // Nothing changed: roles and statuses as the Owner left them.
    let agents = app.agents(&owner.workspace_token).await;
    let state = |id: uuid::Uuid| {
        let agent = agents
            .iter()
            .find(|a| a["id"] == id.to_string())
            .expect("listed");
        (agent["role"].clone(), agent["status"].clone())
    };
    assert_eq!(state(owner_agent), (json!("admin"), json!("active")));
    assert_eq!(state(ann.agent_id), (json!("agent"), json!("active")));
    assert_eq!(state(bob.agent_id), (json!("admin"), json!("deactivated")));

    // What keys are for still works: agents in, agents out.
    assert_eq!(
        app.invite(&key, &unique_email(), "agent").await.status(),
        StatusCode::CREATED
    );
    for action in ["deactivate", "reactivate"] {
        let response = app
            .post_json(
                &format!("/api/agents/{}/{action}", ann.agent_id),
                &json!({}),
                Some(&key),
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK, "{action}");
    }
    let same_role = app
        .put_json(
            &format!("/api/agents/{}/role", ann.agent_id),
            &json!({"role": "agent"}),
            Some(&key),
        )
        .await;
    assert_eq!(same_role.status(), StatusCode::OK);
    // And the Owner's own token still does everything.
    let promoted = app
        .put_json(
            &format!("/api/agents/{}/role", ann.agent_id),
            &json!({"role": "admin"}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(promoted.status(), StatusCode::OK);
}
