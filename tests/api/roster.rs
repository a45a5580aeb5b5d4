//! The team list is read from the workspace's own copy of each member (`agent_profiles`), not
//! joined from the control plane. Every change to an account or a membership must reach that
//! copy in the same transaction: after each one, the copy and the control plane agree, and
//! the API shows the change.

use reqwest::StatusCode;
use serde_json::{Value, json};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::helpers::{PASSWORD, TestApp, spawn_app, unique_email};

type MemberRow = (Uuid, String, String, String, String, OffsetDateTime);

/// Fails unless the tenant's copy of the team equals the control plane's records.
async fn copies_agree(app: &TestApp, workspace_id: Uuid) {
    let control: Vec<MemberRow> = sqlx::query_as(
        "SELECT m.user_id, u.email, u.full_name, m.role, m.status, m.created_at
           FROM public.memberships m JOIN public.users u ON u.id = m.user_id
          WHERE m.workspace_id = $1 ORDER BY m.user_id",
    )
    .bind(workspace_id)
    .fetch_all(&app.db)
    .await
    .unwrap();
    let copy: Vec<MemberRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT user_id, email, full_name, role, status, joined_at
           FROM ws_{}.agent_profiles ORDER BY user_id",
        workspace_id.simple()
    )))
    .fetch_all(&app.db)
    .await
    .unwrap();
    assert_eq!(copy, control, "the tenant's copy of the team drifted");
}

fn listed(agents: &[Value], user_id: Uuid) -> &Value {
    agents
        .iter()
        .find(|a| a["userId"] == user_id.to_string())
        .expect("listed")
}

#[tokio::test]
async fn the_tenants_copy_of_the_team_follows_every_membership_and_account_change() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("roster").await;
    copies_agree(&app, owner.workspace_id).await;

    // Joining through an invitation.
    let bea = app.member(&owner, "agent").await;
    copies_agree(&app, owner.workspace_id).await;

    // A role change, a deactivation and a reactivation.
    let agent_path = format!("/api/agents/{}", bea.agent_id);
    let response = app
        .put_json(
            &format!("{agent_path}/role"),
            &json!({"role": "admin"}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    copies_agree(&app, owner.workspace_id).await;
    assert_eq!(
        listed(&app.agents(&owner.workspace_token).await, bea.user_id)["role"],
        "admin"
    );
    for (action, status) in [("deactivate", "deactivated"), ("reactivate", "active")] {
        let response = app
            .post_json(
                &format!("{agent_path}/{action}"),
                &json!({}),
                Some(&owner.workspace_token),
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK, "{action}");
        copies_agree(&app, owner.workspace_id).await;
        assert_eq!(
            listed(&app.agents(&owner.workspace_token).await, bea.user_id)["status"],
            status
        );
    }

    // An email change, once verified, reaches every workspace the account is in.
    let other = app.owner_with_workspace("roster-two").await;
    app.add_member(other.workspace_id, bea.user_id, "agent")
        .await;
    copies_agree(&app, other.workspace_id).await;
    let new_email = unique_email();
    let response = app
        .post_json(
            "/auth/change-email",
            &json!({"newEmail": new_email, "password": PASSWORD}),
            Some(&bea.user_token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    let link = app.verification_token(bea.user_id).await.unwrap();
    assert_eq!(app.verify_email(&link).await.status(), StatusCode::OK);
    for workspace in [&owner, &other] {
        copies_agree(&app, workspace.workspace_id).await;
        assert_eq!(
            listed(&app.agents(&workspace.workspace_token).await, bea.user_id)["email"],
            new_email.as_str()
        );
    }
}
