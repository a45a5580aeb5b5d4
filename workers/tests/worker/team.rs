//! The whole invitation journey: an Owner invites over the API, the worker emails the join
//! link, and the invitee joins with it (with an existing account, or by creating one).

use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use crate::harness::{PASSWORD, stack, unique_email};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invitees_join_through_the_link_in_their_email() {
    let stack = stack(&[]).await;
    let (owner_token, _) = stack.register(&unique_email()).await;
    // Only a verified Owner may invite: the owner verifies through their own email first.
    let received = stack.sink.wait_for(1, Duration::from_secs(15)).await;
    let verification = received[0]
        .token_in_link("http://desk.test/verify-email")
        .expect("a verify link");
    let verified = stack
        .client
        .get(format!("{}/auth/verify-email", stack.api))
        .query(&[("token", &verification)])
        .send()
        .await
        .unwrap();
    assert_eq!(verified.status(), 200);
    let (_, workspace) = stack
        .call(
            Method::POST,
            "/workspaces",
            Some(&owner_token),
            Some(json!({"name": "Acme Support", "slug": "acme"})),
        )
        .await;
    let workspace_id = workspace["id"].as_str().unwrap().to_owned();
    let (_, selected) = stack
        .call(
            Method::POST,
            &format!("/workspaces/{workspace_id}/select"),
            Some(&owner_token),
            None,
        )
        .await;
    let workspace_token = selected["token"].as_str().unwrap().to_owned();

    // A newcomer: the link opens the account-creation path.
    let newcomer = unique_email();
    let (status, _) = stack
        .call(
            Method::POST,
            "/api/agents/invite",
            Some(&workspace_token),
            Some(json!({"email": newcomer, "role": "agent"})),
        )
        .await;
    assert_eq!(status, 201);
    let received = stack.sink.wait_for(2, Duration::from_secs(15)).await;
    let invitation = &received[1];
    assert_eq!(invitation.rcpt_to, std::slice::from_ref(&newcomer));
    assert!(
        invitation.text().contains("Workspace: \"Acme Support\""),
        "{}",
        invitation.text()
    );
    assert!(
        !invitation.subject().contains("Acme Support"),
        "the workspace's name is data, never the subject: {}",
        invitation.subject()
    );
    let token = invitation
        .token_in_link("http://desk.test/join")
        .expect("a join link");
    let (status, joined) = stack
        .call(
            Method::POST,
            "/invitations/accept",
            None,
            Some(json!({"token": token, "fullName": "Bea Jones", "password": PASSWORD})),
        )
        .await;
    assert_eq!(status, 201, "{joined}");
    assert_eq!(joined["user"]["emailVerified"], true);
    assert_eq!(joined["workspace"]["slug"], "acme");

    // Someone with an account: signs in, then accepts with their user token.
    let existing = unique_email();
    let (existing_token, _) = stack.register(&existing).await;
    stack.sink.wait_for(3, Duration::from_secs(15)).await;
    let (status, _) = stack
        .call(
            Method::POST,
            "/api/agents/invite",
            Some(&workspace_token),
            Some(json!({"email": existing, "role": "admin"})),
        )
        .await;
    assert_eq!(status, 201);
    let received = stack.sink.wait_for(4, Duration::from_secs(15)).await;
    let token = received[3]
        .token_in_link("http://desk.test/join")
        .expect("a join link");
    let (status, joined) = stack
        .call(
            Method::POST,
            "/invitations/accept",
            Some(&existing_token),
            Some(json!({ "token": token })),
        )
        .await;
    assert_eq!(status, 200, "{joined}");
    assert_eq!(joined["workspace"]["role"], "admin");

    let (_, agents) = stack
        .call(Method::GET, "/api/agents", Some(&workspace_token), None)
        .await;
    let names: Vec<&str> = agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["displayName"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 3, "{agents}");
    assert!(names.contains(&"Bea Jones"));
}
