//! `/api/canned-responses*`: Owners write them, everyone lists, searches and renders them.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app};
use crate::helpers_conversations::id;

fn canned(short_code: &str, title: &str, body: &str) -> Value {
    json!({"shortCode": short_code, "title": title, "body": body})
}

#[tokio::test]
async fn owners_write_canned_responses_and_everyone_finds_them() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let owner_token = owner.workspace_token.as_str();
    let bea = app.join(&owner, "agent").await;

    let refund = app
        .json_ok(
            Method::POST,
            "/api/canned-responses",
            &canned(" Refund ", " Refund on its way ", "Hi {{contact.name}}"),
            owner_token,
            StatusCode::CREATED,
        )
        .await;
    assert_eq!(refund["shortCode"], "refund");
    assert_eq!(refund["title"], "Refund on its way");
    assert_eq!(refund["body"], "Hi {{contact.name}}");
    let hello = app
        .json_ok(
            Method::POST,
            "/api/canned-responses",
            &canned("hello", "Greeting", "Hello!"),
            owner_token,
            StatusCode::CREATED,
        )
        .await;
    let shipping = app
        .json_ok(
            Method::POST,
            "/api/canned-responses",
            &canned("ship-2", "Where is my REFUND parcel", "It ships today."),
            owner_token,
            StatusCode::CREATED,
        )
        .await;

    let search = |q: &'static str| {
        let app = &app;
        let token = bea.token.clone();
        async move {
            let list = app
                .get_ok(&format!("/api/canned-responses{q}"), &token)
                .await;
            list["cannedResponses"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["shortCode"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(search("").await, ["hello", "refund", "ship-2"]);
    assert_eq!(
        search("?q=refund").await,
        ["refund", "ship-2"],
        "code or title"
    );
    assert_eq!(search("?q=GREET").await, ["hello"]);
    assert_eq!(search("?q=ship").await, ["ship-2"]);
    assert_eq!(search("?q=%25").await, Vec::<String>::new(), "no wildcards");
    assert_eq!(search("?q=nothing").await, Vec::<String>::new());
    assert_eq!(search("?q=").await.len(), 3);
    let got = app
        .get_ok(&format!("/api/canned-responses/{}", id(&hello)), &bea.token)
        .await;
    assert_eq!(got, hello);

    let path = format!("/api/canned-responses/{}", id(&shipping));
    let updated = app
        .json_ok(
            Method::PATCH,
            &path,
            &json!({"title": "Parcel on its way"}),
            owner_token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(updated["title"], "Parcel on its way");
    assert_eq!(updated["shortCode"], "ship-2", "left out, left alone");
    assert_eq!(updated["body"], "It ships today.");
    let deleted = app
        .send(Method::DELETE, &path, None, Some(owner_token))
        .await;
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    assert_eq!(search("").await, ["hello", "refund"]);
    assert_problem(
        app.send(Method::DELETE, &path, None, Some(owner_token))
            .await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;

    // Agents use them but may not write them.
    for (method, route, body) in [
        (
            Method::POST,
            "/api/canned-responses".to_owned(),
            Some(canned("mine", "Mine", "x")),
        ),
        (
            Method::PATCH,
            format!("/api/canned-responses/{}", id(&refund)),
            Some(json!({"title": "Mine"})),
        ),
        (
            Method::DELETE,
            format!("/api/canned-responses/{}", id(&refund)),
            None,
        ),
    ] {
        assert_problem(
            app.send(method, &route, body.as_ref(), Some(&bea.token))
                .await,
            StatusCode::FORBIDDEN,
            "owner_only",
        )
        .await;
    }
    assert_eq!(search("").await, ["hello", "refund"]);
}

#[tokio::test]
async fn short_codes_are_unique_per_workspace_whatever_the_case() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let other = app.owner_with_workspace("globex").await;
    let token = owner.workspace_token.as_str();
    app.json_ok(
        Method::POST,
        "/api/canned-responses",
        &canned("thanks", "Thanks", "Thank you!"),
        token,
        StatusCode::CREATED,
    )
    .await;
    let second = app
        .json_ok(
            Method::POST,
            "/api/canned-responses",
            &canned("bye", "Bye", "Bye!"),
            token,
            StatusCode::CREATED,
        )
        .await;

    assert_problem(
        app.send(
            Method::POST,
            "/api/canned-responses",
            Some(&canned("THANKS", "Again", "x")),
            Some(token),
        )
        .await,
        StatusCode::CONFLICT,
        "short_code_taken",
    )
    .await;
    assert_problem(
        app.send(
            Method::PATCH,
            &format!("/api/canned-responses/{}", id(&second)),
            Some(&json!({"shortCode": "Thanks"})),
            Some(token),
        )
        .await,
        StatusCode::CONFLICT,
        "short_code_taken",
    )
    .await;
    // Another workspace has its own codes.
    app.json_ok(
        Method::POST,
        "/api/canned-responses",
        &canned("thanks", "Thanks", "Merci"),
        &other.workspace_token,
        StatusCode::CREATED,
    )
    .await;
}

#[tokio::test]
async fn rendering_fills_in_the_contact_the_agent_and_the_workspace() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let other = app.owner_with_workspace("globex").await;
    let bea = app.join(&owner, "agent").await;
    app.json_ok(
        Method::PATCH,
        "/api/me/profile",
        &json!({"displayName": "Bea from Acme"}),
        &bea.token,
        StatusCode::OK,
    )
    .await;
    let template = app
        .json_ok(
            Method::POST,
            "/api/canned-responses",
            &canned(
                "hi",
                "Hi",
                "Hi {{contact.name}}, {{ agent.displayName }} of {{workspace.name}} here. {{unknown}}",
            ),
            &owner.workspace_token,
            StatusCode::CREATED,
        )
        .await;
    let named = app
        .start_conversation(&bea.token, "carla@example.org", "x")
        .await;
    let anonymous = app
        .json_ok(
            Method::POST,
            "/api/conversations",
            &json!({"contact": {"email": "anon@example.org"}, "body": "x"}),
            &bea.token,
            StatusCode::CREATED,
        )
        .await;
    let render = format!("/api/canned-responses/{}/render", id(&template));

    let rendered = app
        .json_ok(
            Method::POST,
            &render,
            &json!({"conversationId": id(&named)}),
            &bea.token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(
        rendered,
        json!({"body": "Hi Carla, Bea from Acme of Workspace acme here. {{unknown}}"})
    );
    let for_owner = app
        .json_ok(
            Method::POST,
            &render,
            &json!({"conversationId": id(&anonymous)}),
            &owner.workspace_token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(
        for_owner["body"],
        "Hi , Test User of Workspace acme here. {{unknown}}"
    );

    // A value is filled in as it is, never read as a template itself.
    let tricky = app
        .json_ok(
            Method::POST,
            "/api/conversations",
            &json!({"contact": {"email": "t@example.org", "name": "{{agent.displayName}}"}, "body": "x"}),
            &bea.token,
            StatusCode::CREATED,
        )
        .await;
    let rendered = app
        .json_ok(
            Method::POST,
            &render,
            &json!({"conversationId": id(&tricky)}),
            &bea.token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(
        rendered["body"],
        "Hi {{agent.displayName}}, Bea from Acme of Workspace acme here. {{unknown}}"
    );

    let foreign_conversation = app
        .start_conversation(&other.workspace_token, "x@example.org", "x")
        .await;
    let problem = assert_problem(
        app.send(
            Method::POST,
            &render,
            Some(&json!({"conversationId": id(&foreign_conversation)})),
            Some(&bea.token),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
    )
    .await;
    assert!(problem["errors"]["conversationId"].is_array());
    for body in [json!({}), json!({"conversationId": "nope"})] {
        assert_problem(
            app.send(Method::POST, &render, Some(&body), Some(&bea.token))
                .await,
            StatusCode::BAD_REQUEST,
            "invalid_body",
        )
        .await;
    }
}

#[tokio::test]
async fn fields_are_checked_and_other_workspaces_are_invisible() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let other = app.owner_with_workspace("globex").await;
    let token = owner.workspace_token.as_str();
    let key = app.api_key(&owner.workspace_token).await.1;
    let theirs = app
        .json_ok(
            Method::POST,
            "/api/canned-responses",
            &canned("secret", "Secret", "Theirs"),
            &other.workspace_token,
            StatusCode::CREATED,
        )
        .await;
    let conversation = app.start_conversation(token, "a@example.org", "x").await;

    for body in [
        json!({"shortCode": "x", "title": "x"}),
        json!({"shortCode": "x", "body": "x"}),
        json!({"shortCode": "x", "title": "x", "body": "x", "tags": []}),
    ] {
        assert_problem(
            app.send(
                Method::POST,
                "/api/canned-responses",
                Some(&body),
                Some(token),
            )
            .await,
            StatusCode::BAD_REQUEST,
            "invalid_body",
        )
        .await;
    }
    let problem = assert_problem(
        app.send(
            Method::POST,
            "/api/canned-responses",
            Some(&canned("has space", " ", "")),
            Some(token),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"].as_object().unwrap().len(), 3, "{problem}");

    assert_eq!(
        app.get_ok("/api/canned-responses?q=secret", token).await["cannedResponses"],
        json!([])
    );
    let path = format!("/api/canned-responses/{}", id(&theirs));
    for (method, route, body) in [
        (Method::GET, path.clone(), None),
        (Method::PATCH, path.clone(), Some(json!({"title": "Mine"}))),
        (Method::DELETE, path.clone(), None),
        (
            Method::POST,
            format!("{path}/render"),
            Some(json!({"conversationId": id(&conversation)})),
        ),
        (Method::GET, "/api/canned-responses/nope".to_owned(), None),
    ] {
        assert_problem(
            app.send(method, &route, body.as_ref(), Some(token)).await,
            StatusCode::NOT_FOUND,
            "not_found",
        )
        .await;
    }
    assert_eq!(app.get_ok(&path, &other.workspace_token).await, theirs);

    for (credential, status, code) in [
        (None, StatusCode::UNAUTHORIZED, "unauthorized"),
        (
            Some(owner.user_token.as_str()),
            StatusCode::FORBIDDEN,
            "wrong_token_type",
        ),
        (
            Some(key.as_str()),
            StatusCode::FORBIDDEN,
            "api_key_not_allowed",
        ),
    ] {
        for (method, route) in [
            (Method::GET, "/api/canned-responses".to_owned()),
            (Method::POST, "/api/canned-responses".to_owned()),
            (Method::PATCH, path.clone()),
            (Method::DELETE, path.clone()),
            (Method::POST, format!("{path}/render")),
        ] {
            assert_problem(
                app.send(method, &route, Some(&json!({})), credential).await,
                status,
                code,
            )
            .await;
        }
    }
}

#[tokio::test]
async fn a_placeholder_with_a_fallback_greets_an_anonymous_visitor() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("fallback").await;
    let token = owner.workspace_token.as_str();
    let site_key = app
        .widget_site(&owner, &[crate::helpers_widget::SITE])
        .await;
    let visitor = app.visitor(&site_key, None).await;
    let conversation = app.visitor_said(&visitor, "Hi").await;
    let template = app
        .json_ok(
            Method::POST,
            "/api/canned-responses",
            &canned(
                "thanks",
                "Thanks",
                r#"Thanks for reaching out, {{contact.name | fallback: "there"}}!"#,
            ),
            token,
            StatusCode::CREATED,
        )
        .await;
    let render = format!("/api/canned-responses/{}/render", id(&template));
    let body = json!({"conversationId": conversation});
    let anonymous = app
        .json_ok(Method::POST, &render, &body, token, StatusCode::OK)
        .await;
    assert_eq!(anonymous["body"], "Thanks for reaching out, there!");
    // Once the visitor says who they are, their name wins.
    app.json_ok(
        Method::POST,
        "/widget/v1/contact",
        &json!({"name": "Ivy"}),
        &visitor.token,
        StatusCode::OK,
    )
    .await;
    let named = app
        .json_ok(Method::POST, &render, &body, token, StatusCode::OK)
        .await;
    assert_eq!(named["body"], "Thanks for reaching out, Ivy!");
}
