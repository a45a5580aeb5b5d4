//! What the emails say, where their links go, and that the links work.

use std::time::Duration;

use reqwest::Method;
use sha2::{Digest, Sha256};
use supportdesk::email_address::EmailAddress;
use supportdesk::invitations;
use supportdesk_core::email_tokens::EmailTokenKey;
use supportdesk_core::role::Role;
use uuid::Uuid;

use crate::harness::{stack, stack_without_worker, unique_email};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registration_sends_a_verification_email_whose_link_verifies() {
    let stack = stack(&[]).await;
    let email = unique_email();
    let (user_token, _) = stack.register(&email).await;

    let received = stack.sink.wait_for(1, Duration::from_secs(15)).await;

    let mail = &received[0];
    assert_eq!(mail.rcpt_to, std::slice::from_ref(&email));
    assert_eq!(mail.mail_from, "no-reply@localhost");
    assert_eq!(
        mail.subject(),
        "Confirm your email address for Support Desk"
    );
    let rows = stack.outbox().await;
    assert_eq!(mail.message_id(), format!("{}@localhost", rows[0].0));
    assert!(mail.text().contains(&email), "{}", mail.text());
    let token = mail
        .token_in_link("http://desk.test/verify-email")
        .expect("a verify link");
    assert_eq!(token.len(), 43);
    assert!(
        mail.html()
            .contains(&format!("http://desk.test/verify-email?token={token}"))
    );
    // The name is user input: escaped in HTML, verbatim in text.
    assert!(
        mail.html().contains("Ann &#60;Smith&#62;") || mail.html().contains("Ann &lt;Smith&gt;")
    );
    assert!(mail.text().contains("Hello Ann <Smith>,"));

    let verified = stack
        .client
        .get(format!("{}/auth/verify-email", stack.api))
        .query(&[("token", &token)])
        .send()
        .await
        .unwrap();
    assert_eq!(verified.status(), 200);
    let (_, me) = stack
        .call(Method::GET, "/auth/me", Some(&user_token), None)
        .await;
    assert_eq!(me["emailVerified"], true);
    let rows = stack.outbox().await;
    assert_eq!((rows[0].1.as_deref(), rows[0].2), (Some("done"), 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invitation_email_carries_a_join_link_to_the_workspace() {
    let stack = stack(&[]).await;
    let (inviter, workspace) = (Uuid::now_v7(), Uuid::now_v7());
    // Names an attacker chose, to pass their words off as ours: they stay quoted data.
    let workspace_name =
        "Acme Support. Your account is suspended, verify at http://evil.example/login";
    let inviter_name = "Olive Owner (IT: www.evil.example)";
    sqlx::query(
        "INSERT INTO public.users (id, email, full_name, password_hash) VALUES ($1, 'owner@example.com', $2, 'x')",
    )
    .bind(inviter)
    .bind(inviter_name)
    .execute(&stack.db)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO public.workspaces (id, name, slug, schema_name) VALUES ($1, $2, 'acme', $3)",
    )
    .bind(workspace)
    .bind(workspace_name)
    .bind(format!("ws_{}", workspace.simple()))
    .execute(&stack.db)
    .await
    .unwrap();
    let key = EmailTokenKey::derive(
        &supportdesk_core::config::SigningSecret::parse(
            supportdesk_test_support::EMAIL_TOKEN_SECRET.into(),
        )
        .unwrap(),
    );
    let invitee = EmailAddress::parse("new.agent@example.com").unwrap();
    let mut tx = stack.db.begin().await.unwrap();
    let invitation = invitations::issue(
        &mut tx,
        &key,
        workspace,
        &invitee,
        Role::Agent,
        Some(inviter),
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();

    let received = stack.sink.wait_for(1, Duration::from_secs(15)).await;

    let mail = &received[0];
    assert_eq!(mail.rcpt_to, ["new.agent@example.com"]);
    assert_eq!(
        mail.subject(),
        "You are invited to a workspace on Support Desk"
    );
    let subject = mail.subject();
    assert!(
        !subject.contains("Acme") && !subject.contains("Olive") && !subject.contains("evil"),
        "{subject}"
    );
    let (text, html) = (mail.text(), mail.html());
    assert!(
        text.contains("join a workspace on Support Desk as an agent"),
        "{text}"
    );
    // The names, quoted after their labels, with nothing a mail client would link.
    assert!(
        text.contains("Workspace: \"Acme Support\u{2024} Your account is suspended, verify at http\u{2236}//ev…\""),
        "{text}"
    );
    assert!(
        text.contains("Invited by: \"Olive Owner (IT\u{2236} www\u{2024}evil\u{2024}example)\""),
        "{text}"
    );
    for part in [&text, &html] {
        for link in ["http://evil", "https://evil", "evil.example", "www.evil"] {
            assert!(!part.contains(link), "{link} in {part}");
        }
    }
    let token = mail
        .token_in_link("http://desk.test/join")
        .expect("a join link");
    assert!(html.contains(&format!("http://desk.test/join?token={token}")));
    let stored: Vec<u8> =
        sqlx::query_scalar("SELECT token_hash FROM public.invitations WHERE id = $1")
            .bind(invitation.id)
            .fetch_one(&stack.db)
            .await
            .unwrap();
    assert_eq!(
        stored,
        Sha256::digest(token.as_bytes()).to_vec(),
        "the link carries the invitation's token"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verification_replaced_before_delivery_is_skipped_not_sent() {
    let mut stack = stack_without_worker(&[]).await;
    let email = unique_email();
    let (user_token, _) = stack.register(&email).await;
    let (resent, _) = stack
        .call(
            Method::POST,
            "/auth/resend-verification",
            Some(&user_token),
            None,
        )
        .await;
    assert_eq!(resent, 202);

    stack.start_worker().await;
    let rows = stack
        .wait_outbox(Duration::from_secs(15), "both rows finished", |rows| {
            rows.len() == 2 && rows.iter().all(|r| r.1.is_some())
        })
        .await;

    assert_eq!(rows[0].1.as_deref(), Some("skipped"));
    assert_eq!(rows[1].1.as_deref(), Some("done"));
    assert_eq!(
        stack.sink.received().len(),
        1,
        "only the live token is mailed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_workspace_has_its_schema_dropped_in_the_background() {
    let stack = stack(&[]).await;
    let (id, token) = stack.workspace("doomed").await;
    let (deleted, _) = stack
        .call(Method::DELETE, "/api/workspace", Some(&token), None)
        .await;
    assert_eq!(deleted, 202);

    let schema = format!("ws_{}", id.simple());
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        let (schemas, rows): (i64, i64) = sqlx::query_as(
            "SELECT (SELECT count(*) FROM pg_namespace WHERE nspname = $1),
                    (SELECT count(*) FROM public.workspaces WHERE id = $2)",
        )
        .bind(&schema)
        .bind(id)
        .fetch_one(&stack.db)
        .await
        .unwrap();
        if (schemas, rows) == (0, 0) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "schema {schemas}, row {rows}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The job records its outcome just after the drop commits.
    stack
        .wait_outbox(
            Duration::from_secs(5),
            "every job's outcome recorded",
            |rows| rows.iter().all(|row| row.1.is_some()),
        )
        .await;
    let outcome: Option<String> =
        sqlx::query_scalar("SELECT outcome FROM public.outbox WHERE kind = 'drop_workspace'")
            .fetch_one(&stack.db)
            .await
            .unwrap();
    assert_eq!(outcome.as_deref(), Some("done"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_search_language_has_past_messages_indexed_again_in_the_background() {
    let stack = stack(&[]).await;
    let (_, token) = stack.workspace("paris-search").await;
    let conversation = serde_json::json!({
        "contact": {"email": "marie@example.org"},
        "body": "Les chevaux sont arrivés ce matin.",
    });
    let (status, _) = stack
        .call(
            Method::POST,
            "/api/conversations",
            Some(&token),
            Some(conversation),
        )
        .await;
    assert_eq!(status, 201);
    let found = |stack_token: String| {
        let stack = &stack;
        async move {
            let (status, body) = stack
                .call(
                    Method::GET,
                    "/api/search?q=cheval&type=messages",
                    Some(&stack_token),
                    None,
                )
                .await;
            assert_eq!(status, 200, "{body}");
            body["results"].as_array().unwrap().len()
        }
    };
    assert_eq!(
        found(token.clone()).await,
        0,
        "English does not stem chevaux"
    );

    let french = serde_json::json!({"search": {"language": "french"}});
    let (status, settings) = stack
        .call(Method::PATCH, "/api/settings", Some(&token), Some(french))
        .await;
    assert_eq!(status, 200, "{settings}");
    assert_eq!(settings["search"]["language"], "french");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let outcome = loop {
        let outcome: Option<String> =
            sqlx::query_scalar("SELECT outcome FROM public.outbox WHERE kind = 'reindex_search'")
                .fetch_one(&stack.db)
                .await
                .unwrap();
        if let Some(outcome) = outcome {
            break outcome;
        }
        assert!(std::time::Instant::now() < deadline, "the re-indexing ran");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(outcome, "done");
    assert_eq!(found(token).await, 1, "the past message, stemmed in French");
}
