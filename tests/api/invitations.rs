//! Inviting agents and accepting invitations: existing accounts, new accounts, and every way
//! an invitation can be refused.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{PASSWORD, assert_problem, spawn_app, unique_email};

#[tokio::test]
async fn an_invite_queues_its_email_in_the_same_transaction() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let outbox_before = app.count("outbox").await;
    let email = unique_email();
    let response = app
        .invite(
            &owner.workspace_token,
            &format!("  {} ", email.to_uppercase()),
            "agent",
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    let invitation = &body["invitation"];
    assert_eq!(invitation["email"], email, "normalised");
    assert_eq!(invitation["role"], "agent");
    assert_eq!(invitation["status"], "pending");
    let expires = time::OffsetDateTime::parse(
        invitation["expiresAt"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let days = (expires - time::OffsetDateTime::now_utc()).whole_hours();
    assert!((167..=168).contains(&days), "seven days: {days} hours");
    assert_eq!(app.count("outbox").await, outbox_before + 1);
    let kind: String =
        sqlx::query_scalar("SELECT kind FROM public.outbox ORDER BY created_at DESC LIMIT 1")
            .fetch_one(&app.db)
            .await
            .unwrap();
    assert_eq!(kind, "invitation_email");

    let listed: Value = app
        .get("/api/invitations", Some(&owner.workspace_token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["invitations"][0]["id"], invitation["id"]);
    assert_eq!(
        listed["invitations"][0]["invitedBy"],
        owner.user_id.to_string()
    );
}

#[tokio::test]
async fn an_existing_account_accepts_with_its_user_token() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let email = unique_email();
    let (user_token, user_id) = app.signed_up(&email).await;
    let token = app.invited(&owner.workspace_token, &email, "admin").await;

    let response = app
        .accept(&json!({ "token": token }), Some(&user_token))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body["workspace"],
        json!({"id": owner.workspace_id, "name": "Workspace acme", "slug": "acme", "role": "admin"})
    );
    let me: Value = app.me(&user_token).await.json().await.unwrap();
    assert_eq!(me["emailVerified"], true, "the invitation proved the inbox");
    assert_eq!(me["workspaces"][0]["id"], owner.workspace_id.to_string());
    let agent = app
        .agents(&owner.workspace_token)
        .await
        .into_iter()
        .find(|a| a["userId"] == user_id.to_string())
        .unwrap();
    assert_eq!(agent["role"], "admin");
    // Single use.
    assert_problem(
        app.accept(&json!({ "token": token }), Some(&user_token))
            .await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;
    let listed: Value = app
        .get("/api/invitations", Some(&owner.workspace_token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["invitations"], json!([]));
}

#[tokio::test]
async fn a_new_invitee_creates_a_verified_account_while_accepting() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let email = unique_email();
    let token = app.invited(&owner.workspace_token, &email, "agent").await;

    // Without a user token, a name and a valid password are needed; nothing is consumed.
    for (body, field) in [
        (json!({ "token": token }), "fullName"),
        (json!({ "token": token, "fullName": "Bea" }), "password"),
        (
            json!({ "token": token, "fullName": "Bea", "password": "short" }),
            "password",
        ),
        (
            json!({ "token": token, "fullName": "  ", "password": PASSWORD }),
            "fullName",
        ),
    ] {
        let problem = assert_problem(
            app.accept(&body, None).await,
            StatusCode::BAD_REQUEST,
            "validation_failed",
        )
        .await;
        assert!(problem["errors"][field].is_array(), "{problem}");
    }

    let response = app
        .accept(
            &json!({ "token": token, "fullName": "Bea Jones", "password": PASSWORD }),
            None,
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["user"]["email"], email);
    assert_eq!(body["user"]["fullName"], "Bea Jones");
    assert_eq!(body["user"]["emailVerified"], true);
    assert_eq!(body["workspace"]["role"], "agent");
    let user_token = body["token"].as_str().unwrap();
    let me: Value = app.me(user_token).await.json().await.unwrap();
    assert_eq!(me["emailVerified"], true);
    assert_eq!(me["workspaces"][0]["slug"], "acme");
    // The account signs in like any other, and no verification email was queued for it.
    assert_eq!(app.login(&email, PASSWORD).await.status(), StatusCode::OK);
    let verifications: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM public.email_verifications v JOIN public.users u ON u.id = v.user_id
          WHERE u.email = $1",
    )
    .bind(&email)
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert_eq!(verifications, 0);
}

#[tokio::test]
async fn creating_an_account_for_a_taken_email_is_a_conflict_and_consumes_nothing() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let email = unique_email();
    let (user_token, _) = app.signed_up(&email).await;
    let token = app.invited(&owner.workspace_token, &email, "agent").await;
    assert_problem(
        app.accept(
            &json!({ "token": token, "fullName": "Someone", "password": PASSWORD }),
            None,
        )
        .await,
        StatusCode::CONFLICT,
        "email_taken",
    )
    .await;
    // The rightful owner of the address can still use it.
    assert_eq!(
        app.accept(&json!({ "token": token }), Some(&user_token))
            .await
            .status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn an_invitation_for_another_address_is_refused() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let token = app
        .invited(&owner.workspace_token, &unique_email(), "agent")
        .await;
    let (other_token, _) = app.signed_up(&unique_email()).await;
    assert_problem(
        app.accept(&json!({ "token": token }), Some(&other_token))
            .await,
        StatusCode::FORBIDDEN,
        "invitation_for_another_email",
    )
    .await;
    // A workspace token is the wrong credential; a bad one is not a credential at all.
    assert_problem(
        app.accept(&json!({ "token": token }), Some(&owner.workspace_token))
            .await,
        StatusCode::FORBIDDEN,
        "wrong_token_type",
    )
    .await;
    assert_problem(
        app.accept(&json!({ "token": token }), Some("not-a-jwt"))
            .await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
}

#[tokio::test]
async fn reinviting_replaces_the_pending_invitation_and_revoking_kills_the_link() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let email = unique_email();
    let (user_token, _) = app.signed_up(&email).await;
    let first = app.invited(&owner.workspace_token, &email, "agent").await;
    let second = app.invited(&owner.workspace_token, &email, "admin").await;
    assert_problem(
        app.accept(&json!({ "token": first }), Some(&user_token))
            .await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;
    let listed: Value = app
        .get("/api/invitations", Some(&owner.workspace_token))
        .await
        .json()
        .await
        .unwrap();
    let invitations = listed["invitations"].as_array().unwrap();
    assert_eq!(invitations.len(), 1);
    assert_eq!(invitations[0]["role"], "admin");

    let id = invitations[0]["id"].as_str().unwrap();
    assert_eq!(
        app.delete(
            &format!("/api/invitations/{id}"),
            Some(&owner.workspace_token)
        )
        .await
        .status(),
        StatusCode::NO_CONTENT
    );
    assert_problem(
        app.delete(
            &format!("/api/invitations/{id}"),
            Some(&owner.workspace_token),
        )
        .await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    assert_problem(
        app.accept(&json!({ "token": second }), Some(&user_token))
            .await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;
}

#[tokio::test]
async fn expired_and_malformed_tokens_are_refused() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let email = unique_email();
    let (user_token, _) = app.signed_up(&email).await;
    let token = app.invited(&owner.workspace_token, &email, "agent").await;
    sqlx::query("UPDATE public.invitations SET expires_at = now() - interval '1 second'")
        .execute(&app.db)
        .await
        .unwrap();
    let listed: Value = app
        .get("/api/invitations", Some(&owner.workspace_token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["invitations"][0]["status"], "expired");
    for token in [token.as_str(), "", "x", &"a".repeat(500)] {
        assert_problem(
            app.accept(&json!({ "token": token }), Some(&user_token))
                .await,
            StatusCode::BAD_REQUEST,
            "invalid_token",
        )
        .await;
    }
    assert_problem(
        app.accept(&json!({}), Some(&user_token)).await,
        StatusCode::BAD_REQUEST,
        "invalid_body",
    )
    .await;
    let malformed = app
        .client
        .post(app.url("/invitations/accept"))
        .header("content-type", "application/json")
        .body("{\"token\":")
        .send()
        .await
        .unwrap();
    assert_problem(malformed, StatusCode::BAD_REQUEST, "malformed_json").await;
    let me: Value = app.me(&user_token).await.json().await.unwrap();
    assert_eq!(me["workspaces"], json!([]));
}

#[tokio::test]
async fn members_cannot_be_invited_again_and_bad_input_changes_nothing() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let ann = app.member(&owner, "agent").await;
    assert_problem(
        app.invite(&owner.workspace_token, &ann.email, "agent")
            .await,
        StatusCode::CONFLICT,
        "already_member",
    )
    .await;
    app.post_json(
        &format!("/api/agents/{}/deactivate", ann.agent_id),
        &json!({}),
        Some(&owner.workspace_token),
    )
    .await;
    assert_problem(
        app.invite(&owner.workspace_token, &ann.email, "agent")
            .await,
        StatusCode::CONFLICT,
        "member_deactivated",
    )
    .await;

    let outbox = app.count("outbox").await;
    let invitations = app.count("invitations").await;
    for (body, fields) in [
        (json!({"email": "nope", "role": "agent"}), vec!["email"]),
        (
            json!({"email": unique_email(), "role": "owner"}),
            vec!["role"],
        ),
        (json!({"email": "", "role": ""}), vec!["email", "role"]),
    ] {
        let problem = assert_problem(
            app.post_json("/api/agents/invite", &body, Some(&owner.workspace_token))
                .await,
            StatusCode::BAD_REQUEST,
            "validation_failed",
        )
        .await;
        for field in fields {
            assert!(problem["errors"][field].is_array(), "{problem}");
        }
    }
    assert_problem(
        app.post_json(
            "/api/agents/invite",
            &json!({"email": unique_email()}),
            Some(&owner.workspace_token),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "invalid_body",
    )
    .await;
    assert_eq!(app.count("outbox").await, outbox);
    assert_eq!(app.count("invitations").await, invitations);
}

#[tokio::test]
async fn the_join_page_learns_what_a_link_is_for_and_nothing_from_a_dead_one() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("preview").await;
    let email = unique_email();
    let token = app.invited(&owner.workspace_token, &email, "agent").await;

    let response = app
        .post_json("/invitations/preview", &json!({ "token": token }), None)
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let preview: Value = response.json().await.unwrap();
    assert_eq!(preview["workspaceName"], "Workspace preview");
    assert_eq!(preview["invitedBy"], "Test User");
    assert_eq!(preview["email"], email);
    assert_eq!(preview["role"], "agent");
    assert!(preview["expiresAt"].is_string());
    // Looking changes nothing: the link still works.
    let accepted = app
        .accept(
            &json!({"token": token, "fullName": "Bea", "password": PASSWORD}),
            None,
        )
        .await;
    assert_eq!(accepted.status(), StatusCode::CREATED);

    // Used, unknown, empty, oversized: the same refusal as accepting would give.
    for dead in [token.as_str(), "nope", "", &"a".repeat(500)] {
        let response = app
            .post_json("/invitations/preview", &json!({ "token": dead }), None)
            .await;
        assert_problem(response, StatusCode::BAD_REQUEST, "invalid_token").await;
    }
    let response = app
        .post_json("/invitations/preview", &json!({}), None)
        .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let response = app
        .post_json(
            "/invitations/preview",
            &json!({"token": "x", "extra": 1}),
            None,
        )
        .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
}
