//! `/api/agents`: the team list, deactivation and reactivation (on every replica), roles, and
//! the rule that a workspace always keeps an active Owner.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app, spawn_replica, unique_email};

#[tokio::test]
async fn the_list_shows_the_agent_record_and_filters_by_status() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let ann = app.member(&owner, "agent").await;
    let bob = app.member(&owner, "agent").await;
    let deactivated = app
        .post_json(
            &format!("/api/agents/{}/deactivate", bob.agent_id),
            &json!({}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(deactivated.status(), StatusCode::OK);

    let listed: Value = app
        .get("/api/agents", Some(&ann.workspace_token))
        .await
        .json()
        .await
        .unwrap();
    let agents = listed["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 2, "active only by default: {listed}");
    let me = agents
        .iter()
        .find(|a| a["userId"] == ann.user_id.to_string())
        .unwrap();
    assert_eq!(me["id"], ann.agent_id.to_string());
    assert_eq!(me["email"], ann.email);
    assert_eq!(me["fullName"], "Test User");
    assert_eq!(me["displayName"], "Test User");
    assert_eq!(me["avatarUrl"], Value::Null);
    assert_eq!(me["role"], "agent");
    assert_eq!(me["status"], "active");
    assert_eq!(me["presence"], "offline");
    assert!(me["joinedAt"].as_str().unwrap().ends_with('Z'));
    assert_eq!(agents[0]["role"], "admin", "in the order they joined");

    for (filter, expected) in [("deactivated", 1), ("all", 3), ("active", 2)] {
        let body: Value = app
            .get(
                &format!("/api/agents?status={filter}"),
                Some(&owner.workspace_token),
            )
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(
            body["agents"].as_array().unwrap().len(),
            expected,
            "{filter}"
        );
    }
    assert_problem(
        app.get("/api/agents?status=gone", Some(&owner.workspace_token))
            .await,
        StatusCode::BAD_REQUEST,
        "invalid_query",
    )
    .await;

    let one = app
        .get(
            &format!("/api/agents/{}", bob.agent_id),
            Some(&ann.workspace_token),
        )
        .await;
    assert_eq!(one.status(), StatusCode::OK);
    assert_eq!(one.json::<Value>().await.unwrap()["status"], "deactivated");
}

#[tokio::test]
async fn deactivation_takes_effect_at_once_on_every_replica_and_reactivation_restores_access() {
    let app = spawn_app().await;
    let replica = spawn_replica(&app).await;
    let owner = app.owner_with_workspace("acme").await;
    let ann = app.member(&owner, "agent").await;
    let on_replica = |path: &str, token: &str| {
        app.client
            .get(format!("{}{path}", replica.address))
            .bearer_auth(token.to_owned())
            .send()
    };
    // Warm both replicas' membership caches.
    assert_eq!(
        app.get("/api/agents", Some(&ann.workspace_token))
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        on_replica("/api/agents", &ann.workspace_token)
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );

    let response = app
        .post_json(
            &format!("/api/agents/{}/deactivate", ann.agent_id),
            &json!({}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let agent: Value = response.json().await.unwrap();
    assert_eq!(agent["status"], "deactivated");

    // This process at once; the replica as soon as the broadcast lands (well under the TTL).
    assert_problem(
        app.get("/api/agents", Some(&ann.workspace_token)).await,
        StatusCode::FORBIDDEN,
        "membership_deactivated",
    )
    .await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    loop {
        let status = on_replica("/api/agents", &ann.workspace_token)
            .await
            .unwrap()
            .status();
        if status == StatusCode::FORBIDDEN {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the replica still serves a deactivated agent"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // No new workspace token, gone from /auth/me and from the active list; history kept.
    assert_problem(
        app.select(&ann.user_token, &owner.workspace_id.to_string())
            .await,
        StatusCode::FORBIDDEN,
        "membership_deactivated",
    )
    .await;
    let me: Value = app.me(&ann.user_token).await.json().await.unwrap();
    assert_eq!(me["workspaces"], json!([]));
    let active: Value = app
        .get("/api/agents", Some(&owner.workspace_token))
        .await
        .json()
        .await
        .unwrap();
    assert!(
        !active["agents"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["id"] == ann.agent_id.to_string())
    );
    // Deactivating again changes nothing and still answers with the record.
    let again = app
        .post_json(
            &format!("/api/agents/{}/deactivate", ann.agent_id),
            &json!({}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(again.status(), StatusCode::OK);

    let reactivated = app
        .post_json(
            &format!("/api/agents/{}/reactivate", ann.agent_id),
            &json!({}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(reactivated.status(), StatusCode::OK);
    assert_eq!(
        reactivated.json::<Value>().await.unwrap()["status"],
        "active"
    );
    assert_eq!(
        app.get("/api/agents", Some(&ann.workspace_token))
            .await
            .status(),
        StatusCode::OK
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while on_replica("/api/agents", &ann.workspace_token)
        .await
        .unwrap()
        .status()
        != StatusCode::OK
    {
        assert!(
            std::time::Instant::now() < deadline,
            "replica never restored access"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(
        app.select(&ann.user_token, &owner.workspace_id.to_string())
            .await
            .status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_role_change_applies_on_the_next_request() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let ann = app.member(&owner, "agent").await;
    assert_problem(
        app.invite(&ann.workspace_token, &unique_email(), "agent")
            .await,
        StatusCode::FORBIDDEN,
        "owner_only",
    )
    .await;

    let promoted = app
        .put_json(
            &format!("/api/agents/{}/role", ann.agent_id),
            &json!({"role": "admin"}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(promoted.status(), StatusCode::OK);
    assert_eq!(promoted.json::<Value>().await.unwrap()["role"], "admin");
    // The same token (its role claim says agent): the membership decides.
    assert_eq!(
        app.invite(&ann.workspace_token, &unique_email(), "agent")
            .await
            .status(),
        StatusCode::CREATED
    );

    // Now Ann demotes the original Owner, who loses Owner rights at once.
    let demoted = app
        .put_json(
            &format!(
                "/api/agents/{}/role",
                app.agent_id_of(&ann.workspace_token, owner.user_id).await
            ),
            &json!({"role": "agent"}),
            Some(&ann.workspace_token),
        )
        .await;
    assert_eq!(demoted.status(), StatusCode::OK);
    assert_problem(
        app.get("/api/settings", Some(&owner.workspace_token)).await,
        StatusCode::FORBIDDEN,
        "owner_only",
    )
    .await;

    for body in [json!({"role": "owner"}), json!({"role": "Admin"})] {
        assert_problem(
            app.put_json(
                &format!("/api/agents/{}/role", ann.agent_id),
                &body,
                Some(&ann.workspace_token),
            )
            .await,
            StatusCode::BAD_REQUEST,
            "validation_failed",
        )
        .await;
    }
    assert_problem(
        app.put_json(
            &format!("/api/agents/{}/role", ann.agent_id),
            &json!({}),
            Some(&ann.workspace_token),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "invalid_body",
    )
    .await;
}

#[tokio::test]
async fn the_workspace_always_keeps_an_active_owner() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let own_agent_id = app.agent_id_of(&owner.workspace_token, owner.user_id).await;
    for (method, path, body) in [
        (
            "POST",
            format!("/api/agents/{own_agent_id}/deactivate"),
            json!({}),
        ),
        (
            "PUT",
            format!("/api/agents/{own_agent_id}/role"),
            json!({"role": "agent"}),
        ),
    ] {
        let response = if method == "PUT" {
            app.put_json(&path, &body, Some(&owner.workspace_token))
                .await
        } else {
            app.post_json(&path, &body, Some(&owner.workspace_token))
                .await
        };
        assert_problem(response, StatusCode::CONFLICT, "last_owner").await;
    }
    // Nothing changed.
    let agents = app.agents(&owner.workspace_token).await;
    assert_eq!(agents[0]["role"], "admin");
    assert_eq!(agents[0]["status"], "active");

    // With a second Owner, either may step down, but not both at once.
    let second = app.member(&owner, "admin").await;
    let empty = json!({});
    let mine = format!("/api/agents/{own_agent_id}/deactivate");
    let theirs = format!("/api/agents/{}/deactivate", second.agent_id);
    let (a, b) = tokio::join!(
        app.post_json(&mine, &empty, Some(&owner.workspace_token)),
        app.post_json(&theirs, &empty, Some(&second.workspace_token)),
    );
    let mut statuses = [a.status(), b.status()];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::OK, StatusCode::CONFLICT]);
    let active_owners: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM public.memberships
          WHERE workspace_id = $1 AND role = 'admin' AND status = 'active'",
    )
    .bind(owner.workspace_id)
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert_eq!(active_owners, 1);
}

#[tokio::test]
async fn an_owner_demoted_while_their_change_waits_for_the_team_lock_changes_nothing() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let second = app.member(&owner, "admin").await;
    let agent = app.member(&owner, "agent").await;
    // The second Owner's membership is cached as an Owner's.
    app.agents(&second.workspace_token).await;

    // Another team change holds the lock; the second Owner's deactivation of the agent waits
    // for it, past the authorization layer, while they are made an agent.
    let mut other = app.db.begin().await.unwrap();
    sqlx::query("SELECT id FROM public.workspaces WHERE id = $1 FOR NO KEY UPDATE")
        .bind(owner.workspace_id)
        .execute(&mut *other)
        .await
        .unwrap();
    let demote = async {
        loop {
            let waiting: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM pg_stat_activity
                  WHERE datname = current_database() AND wait_event_type = 'Lock'
                    AND query LIKE '%FROM public.workspaces%'",
            )
            .fetch_one(&app.db)
            .await
            .unwrap();
            if waiting > 0 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        sqlx::query(
            "UPDATE public.memberships SET role = 'agent' WHERE workspace_id = $1 AND user_id = $2",
        )
        .bind(owner.workspace_id)
        .bind(second.user_id)
        .execute(&mut *other)
        .await
        .unwrap();
        other.commit().await.unwrap();
    };
    let path = format!("/api/agents/{}/deactivate", agent.agent_id);
    let empty = json!({});
    let (response, ()) = tokio::join!(
        app.post_json(&path, &empty, Some(&second.workspace_token)),
        demote
    );
    assert_problem(response, StatusCode::FORBIDDEN, "owner_only").await;
    let status: String = sqlx::query_scalar(
        "SELECT status FROM public.memberships WHERE workspace_id = $1 AND user_id = $2",
    )
    .bind(owner.workspace_id)
    .bind(agent.user_id)
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert_eq!(status, "active");
}

#[tokio::test]
async fn another_workspaces_agent_ids_name_nothing() {
    let app = spawn_app().await;
    let acme = app.owner_with_workspace("acme").await;
    let globex = app.owner_with_workspace("globex").await;
    let globex_agent = app.member(&globex, "agent").await;
    for path in [
        format!("/api/agents/{}/deactivate", globex_agent.agent_id),
        format!("/api/agents/{}/reactivate", globex_agent.agent_id),
        "/api/agents/not-a-uuid/deactivate".to_owned(),
    ] {
        assert_problem(
            app.post_json(&path, &json!({}), Some(&acme.workspace_token))
                .await,
            StatusCode::NOT_FOUND,
            "not_found",
        )
        .await;
    }
    assert_problem(
        app.get(
            &format!("/api/agents/{}", globex_agent.agent_id),
            Some(&acme.workspace_token),
        )
        .await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    assert_problem(
        app.put_json(
            &format!("/api/agents/{}/role", globex_agent.agent_id),
            &json!({"role": "admin"}),
            Some(&acme.workspace_token),
        )
        .await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    // Globex's agent is untouched.
    assert_eq!(
        app.get("/api/agents", Some(&globex_agent.workspace_token))
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(app.agents(&acme.workspace_token).await.len(), 1);
}

#[tokio::test]
async fn with_redis_down_team_changes_still_work_and_apply_here_at_once() {
    // Nothing listens on port 1: every broadcast and rate-limit call fails at once.
    let app = crate::helpers::spawn_app_with(&[("REDIS_URL", "redis://127.0.0.1:1")]).await;
    let owner = app.owner_with_workspace("acme").await;
    let ann = app.member(&owner, "agent").await;
    assert_eq!(
        app.get("/api/agents", Some(&ann.workspace_token))
            .await
            .status(),
        StatusCode::OK
    );
    let response = app
        .post_json(
            &format!("/api/agents/{}/deactivate", ann.agent_id),
            &json!({}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_problem(
        app.get("/api/agents", Some(&ann.workspace_token)).await,
        StatusCode::FORBIDDEN,
        "membership_deactivated",
    )
    .await;
    // Invitations are still written, with their email in the outbox for when Redis is back.
    let outbox = app.count("outbox").await;
    assert_eq!(
        app.invite(&owner.workspace_token, &unique_email(), "agent")
            .await
            .status(),
        StatusCode::CREATED
    );
    assert_eq!(app.count("outbox").await, outbox + 1);
}
