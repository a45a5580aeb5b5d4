//! `/api/tickets*`: requester, status with `resolvedAt`, priority, assignee, the link to a
//! conversation, comments, lists, and tenant isolation.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app};
use crate::helpers_conversations::{at, id, ids};

#[tokio::test]
async fn a_ticket_is_opened_for_a_requester_and_numbered_per_workspace() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let other = app.owner_with_workspace("globex").await;
    let bea = app.join(&owner, "agent").await;
    let conversation = app
        .start_conversation(&bea.token, "carla@example.org", "Hi")
        .await;

    let ticket = app
        .json_ok(
            Method::POST,
            "/api/tickets",
            &json!({
                "subject": "  Refund for #1042 ",
                "description": "Double charge",
                "requester": {"email": "Carla@Example.org", "name": "Ignored"},
                "priority": "high",
                "assigneeId": bea.agent_id,
                "conversationId": id(&conversation)
            }),
            &bea.token,
            StatusCode::CREATED,
        )
        .await;
    assert_eq!(ticket["number"], 1);
    assert_eq!(ticket["subject"], "Refund for #1042");
    assert_eq!(ticket["description"], "Double charge");
    assert_eq!(ticket["status"], "open");
    assert_eq!(ticket["priority"], "high");
    assert_eq!(ticket["assigneeId"], json!(bea.agent_id));
    assert_eq!(
        ticket["requester"], conversation["contact"],
        "the same contact"
    );
    assert_eq!(ticket["conversationId"], json!(id(&conversation)));
    assert_eq!(ticket["resolvedAt"], Value::Null);
    assert_eq!(ticket["createdAt"], ticket["updatedAt"]);

    let bare = app
        .open_ticket(&owner.workspace_token, "dan@example.org", json!({}))
        .await;
    assert_eq!(bare["number"], 2);
    for field in ["description", "priority", "assigneeId", "conversationId"] {
        assert_eq!(bare[field], Value::Null, "{field}");
    }
    assert_eq!(bare["requester"]["name"], Value::Null);
    let elsewhere = app
        .open_ticket(&other.workspace_token, "dan@example.org", json!({}))
        .await;
    assert_eq!(elsewhere["number"], 1);

    let got = app
        .get_ok(
            &format!("/api/tickets/{}", id(&ticket)),
            &owner.workspace_token,
        )
        .await;
    assert_eq!(got, ticket);
}

#[tokio::test]
async fn status_changes_keep_resolved_at_honest() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let token = owner.workspace_token.as_str();
    let ticket = app.open_ticket(token, "a@example.org", json!({})).await;
    let path = format!("/api/tickets/{}", id(&ticket));
    let patch = |body: Value| {
        let path = path.clone();
        let app = &app;
        async move {
            app.json_ok(Method::PATCH, &path, &body, token, StatusCode::OK)
                .await
        }
    };

    let pending = patch(json!({"status": "pending"})).await;
    assert_eq!(pending["resolvedAt"], Value::Null);
    let resolved = app
        .json_ok(
            Method::POST,
            &format!("{path}/resolve"),
            &json!({}),
            token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(resolved["status"], "resolved");
    assert!(at(&resolved, "resolvedAt") >= at(&ticket, "createdAt"));
    // Resolving again, then closing, keep the time it was resolved.
    let again = app
        .json_ok(
            Method::POST,
            &format!("{path}/resolve"),
            &json!({}),
            token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(again["resolvedAt"], resolved["resolvedAt"]);
    let closed = patch(json!({"status": "closed"})).await;
    assert_eq!(closed["status"], "closed");
    assert_eq!(closed["resolvedAt"], resolved["resolvedAt"]);
    let reopened = patch(json!({"status": "open"})).await;
    assert_eq!(reopened["resolvedAt"], Value::Null);
    let closed_directly = patch(json!({"status": "closed"})).await;
    assert!(at(&closed_directly, "resolvedAt") >= at(&resolved, "resolvedAt"));
}

#[tokio::test]
async fn a_patch_changes_what_it_names_and_checks_it() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let other = app.owner_with_workspace("globex").await;
    let me = app.owner_agent(&owner).await;
    let bea = app.join(&owner, "agent").await;
    let gone = app.join(&owner, "agent").await;
    app.deactivate(&owner, gone.agent_id).await;
    let conversation = app
        .start_conversation(&me.token, "a@example.org", "Hi")
        .await;
    let foreign = app
        .start_conversation(&other.workspace_token, "a@example.org", "Hi")
        .await;
    let ticket = app
        .open_ticket(
            &me.token,
            "a@example.org",
            json!({"description": "d", "priority": "low"}),
        )
        .await;
    let path = format!("/api/tickets/{}", id(&ticket));

    let changed = app
        .json_ok(
            Method::PATCH,
            &path,
            &json!({
                "subject": "New subject",
                "priority": "urgent",
                "assigneeId": bea.agent_id,
                "conversationId": id(&conversation)
            }),
            &bea.token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(changed["subject"], "New subject");
    assert_eq!(changed["description"], "d", "left out, left alone");
    assert_eq!(changed["priority"], "urgent");
    assert_eq!(changed["assigneeId"], json!(bea.agent_id));
    assert_eq!(changed["conversationId"], json!(id(&conversation)));
    assert!(at(&changed, "updatedAt") >= at(&ticket, "updatedAt"));
    let cleared = app
        .json_ok(
            Method::PATCH,
            &path,
            &json!({"description": null, "priority": null, "assigneeId": null, "conversationId": null}),
            &me.token,
            StatusCode::OK,
        )
        .await;
    for field in ["description", "priority", "assigneeId", "conversationId"] {
        assert_eq!(cleared[field], Value::Null, "{field}");
    }
    assert_eq!(cleared["subject"], "New subject");

    for (body, field) in [
        (json!({"assigneeId": gone.agent_id}), "assigneeId"),
        (json!({"assigneeId": uuid::Uuid::new_v4()}), "assigneeId"),
        (json!({"conversationId": id(&foreign)}), "conversationId"),
        (json!({"subject": "  "}), "subject"),
    ] {
        let problem = assert_problem(
            app.send(Method::PATCH, &path, Some(&body), Some(&me.token))
                .await,
            StatusCode::BAD_REQUEST,
            "validation_failed",
        )
        .await;
        assert!(problem["errors"][field].is_array(), "{problem}");
    }
    for body in [
        json!({"status": "done"}),
        json!({"priority": "critical"}),
        json!({"requester": {"email": "x@example.org"}}),
        json!({"assigneeId": "bea"}),
    ] {
        assert_problem(
            app.send(Method::PATCH, &path, Some(&body), Some(&me.token))
                .await,
            StatusCode::BAD_REQUEST,
            "invalid_body",
        )
        .await;
    }
    let after = app.get_ok(&path, &me.token).await;
    assert_eq!(
        after["subject"], "New subject",
        "refused patches change nothing"
    );
}

#[tokio::test]
async fn creating_checks_every_field() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let other = app.owner_with_workspace("globex").await;
    let token = owner.workspace_token.as_str();
    let gone = app.join(&owner, "agent").await;
    app.deactivate(&owner, gone.agent_id).await;
    let foreign = app
        .start_conversation(&other.workspace_token, "a@example.org", "Hi")
        .await;

    for body in [
        json!({"requester": {"email": "a@example.org"}}),
        json!({"subject": "x", "requester": {"email": "a@example.org"}, "status": "open"}),
        json!({"subject": "x", "requester": {"email": "a@example.org"}, "priority": "p1"}),
        json!({"subject": "x", "requester": "a@example.org"}),
    ] {
        assert_problem(
            app.send(Method::POST, "/api/tickets", Some(&body), Some(token))
                .await,
            StatusCode::BAD_REQUEST,
            "invalid_body",
        )
        .await;
    }
    let malformed = app
        .client
        .post(app.url("/api/tickets"))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body("{")
        .send()
        .await
        .unwrap();
    assert_problem(malformed, StatusCode::BAD_REQUEST, "malformed_json").await;
    for (body, field) in [
        (
            json!({"subject": " ", "requester": {"email": "a@example.org"}}),
            "subject",
        ),
        (
            json!({"subject": "x", "requester": {"email": "nope"}}),
            "requester.email",
        ),
        (
            json!({"subject": "x", "requester": {"email": "a@example.org"}, "assigneeId": gone.agent_id}),
            "assigneeId",
        ),
        (
            json!({"subject": "x", "requester": {"email": "a@example.org"}, "conversationId": id(&foreign)}),
            "conversationId",
        ),
    ] {
        let problem = assert_problem(
            app.send(Method::POST, "/api/tickets", Some(&body), Some(token))
                .await,
            StatusCode::BAD_REQUEST,
            "validation_failed",
        )
        .await;
        assert!(problem["errors"][field].is_array(), "{problem}");
    }
    assert_eq!(
        app.get_ok("/api/tickets", token).await["tickets"],
        json!([])
    );
}

#[tokio::test]
async fn lists_filter_by_status_and_assignee_newest_first_in_pages() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let me = app.owner_agent(&owner).await;
    let bea = app.join(&owner, "agent").await;
    let mut all = Vec::new();
    for i in 0..5 {
        let assignee = match i % 3 {
            0 => json!(me.agent_id),
            1 => json!(bea.agent_id),
            _ => Value::Null,
        };
        all.push(
            app.open_ticket(
                &me.token,
                &format!("r{i}@example.org"),
                json!({ "assigneeId": assignee }),
            )
            .await,
        );
    }
    app.json_ok(
        Method::POST,
        &format!("/api/tickets/{}/resolve", id(&all[3])),
        &json!({}),
        &me.token,
        StatusCode::OK,
    )
    .await;
    let newest_first: Vec<String> = all.iter().rev().map(id).collect();
    let list = |query: &'static str| {
        let app = &app;
        let token = me.token.clone();
        async move {
            ids(
                &app.get_ok(&format!("/api/tickets{query}"), &token).await,
                "tickets",
            )
        }
    };

    assert_eq!(list("").await, newest_first);
    assert_eq!(list("?assignee=me").await, [id(&all[3]), id(&all[0])]);
    assert_eq!(list("?assignee=unassigned").await, [id(&all[2])]);
    assert_eq!(list("?status=resolved").await, [id(&all[3])]);
    assert_eq!(list("?status=open&assignee=me").await, [id(&all[0])]);
    assert_eq!(
        ids(
            &app.get_ok(
                &format!("/api/tickets?assignee={}", bea.agent_id),
                &me.token
            )
            .await,
            "tickets"
        ),
        [id(&all[4]), id(&all[1])]
    );

    let mut paged = Vec::new();
    let mut path = "/api/tickets?limit=2".to_owned();
    loop {
        let page = app.get_ok(&path, &me.token).await;
        paged.extend(ids(&page, "tickets"));
        match page["nextCursor"].as_str() {
            Some(cursor) => path = format!("/api/tickets?limit=2&cursor={cursor}"),
            None => break,
        }
    }
    assert_eq!(paged, newest_first);

    for bad in [
        "?status=archived",
        "?assignee=someone",
        "?limit=0",
        "?limit=500",
        "?cursor=x",
    ] {
        let response = app
            .get(&format!("/api/tickets{bad}"), Some(&me.token))
            .await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{bad}");
    }
}

#[tokio::test]
async fn comments_keep_their_author_and_order() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let me = app.owner_agent(&owner).await;
    let bea = app.join(&owner, "agent").await;
    let ticket = app.open_ticket(&me.token, "a@example.org", json!({})).await;
    let path = format!("/api/tickets/{}/comments", id(&ticket));

    let mut written = Vec::new();
    for (agent, body) in [(&me, "one"), (&bea, "two"), (&me, "three")] {
        let comment = app
            .json_ok(
                Method::POST,
                &path,
                &json!({ "body": body }),
                &agent.token,
                StatusCode::CREATED,
            )
            .await;
        assert_eq!(comment["body"], body);
        assert_eq!(comment["authorAgentId"], json!(agent.agent_id));
        written.push(comment);
    }
    let first = app.get_ok(&format!("{path}?limit=2"), &bea.token).await;
    assert_eq!(first["comments"], json!(written[..2]));
    let cursor = first["nextCursor"].as_str().unwrap();
    let rest = app
        .get_ok(&format!("{path}?limit=2&cursor={cursor}"), &bea.token)
        .await;
    assert_eq!(rest["comments"], json!(written[2..]));
    assert_eq!(rest["nextCursor"], Value::Null);
    let touched = app
        .get_ok(&format!("/api/tickets/{}", id(&ticket)), &me.token)
        .await;
    assert!(at(&touched, "updatedAt") >= at(&written[2], "createdAt"));

    for body in [json!({}), json!({"body": 1})] {
        assert_problem(
            app.send(Method::POST, &path, Some(&body), Some(&me.token))
                .await,
            StatusCode::BAD_REQUEST,
            "invalid_body",
        )
        .await;
    }
    assert_problem(
        app.send(
            Method::POST,
            &path,
            Some(&json!({"body": "\n"})),
            Some(&me.token),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
    )
    .await;
}

#[tokio::test]
async fn another_workspaces_tickets_do_not_exist_here() {
    let app = spawn_app().await;
    let acme = app.owner_with_workspace("acme").await;
    let globex = app.owner_with_workspace("globex").await;
    let key = app.api_key(&acme.workspace_token).await.1;
    let theirs = app
        .open_ticket(&globex.workspace_token, "a@example.org", json!({}))
        .await;
    let path = format!("/api/tickets/{}", id(&theirs));
    let token = acme.workspace_token.as_str();

    assert_eq!(
        app.get_ok("/api/tickets", token).await["tickets"],
        json!([])
    );
    for (method, route, body) in [
        (Method::GET, path.clone(), None),
        (
            Method::PATCH,
            path.clone(),
            Some(json!({"subject": "mine"})),
        ),
        (Method::POST, format!("{path}/resolve"), None),
        (Method::GET, format!("{path}/comments"), None),
        (
            Method::POST,
            format!("{path}/comments"),
            Some(json!({"body": "x"})),
        ),
        (Method::GET, "/api/tickets/42".to_owned(), None),
    ] {
        assert_problem(
            app.send(method, &route, body.as_ref(), Some(token)).await,
            StatusCode::NOT_FOUND,
            "not_found",
        )
        .await;
    }
    assert_eq!(app.get_ok(&path, &globex.workspace_token).await, theirs);

    for (credential, status, code) in [
        (None, StatusCode::UNAUTHORIZED, "unauthorized"),
        (
            Some(acme.user_token.as_str()),
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
            (Method::GET, "/api/tickets".to_owned()),
            (Method::POST, "/api/tickets".to_owned()),
            (Method::PATCH, path.clone()),
            (Method::POST, format!("{path}/resolve")),
            (Method::POST, format!("{path}/comments")),
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
async fn a_ticket_from_a_chat_takes_its_contact_even_without_an_email() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("ticket-from-chat").await;
    let token = owner.workspace_token.as_str();
    let site_key = app
        .widget_site(&owner, &[crate::helpers_widget::SITE])
        .await;
    let visitor = app.visitor(&site_key, None).await;
    let conversation = app.visitor_said(&visitor, "My order is late").await;
    let contact = app.contact_in(&owner, conversation).await;

    // No requester: the conversation's contact, who has no email.
    let ticket = app
        .json_ok(
            Method::POST,
            "/api/tickets",
            &json!({"subject": "Late order", "description": "Visitor: My order is late", "conversationId": conversation}),
            token,
            StatusCode::CREATED,
        )
        .await;
    assert_eq!(ticket["requester"]["id"], contact["id"]);
    assert!(ticket["requester"]["email"].is_null());
    assert_eq!(ticket["conversationId"], json!(conversation));

    // A contact named by id.
    let by_id = app
        .json_ok(
            Method::POST,
            "/api/tickets",
            &json!({"subject": "Follow-up", "requester": {"contactId": contact["id"]}}),
            token,
            StatusCode::CREATED,
        )
        .await;
    assert_eq!(by_id["requester"]["id"], contact["id"]);
    let other = app.open_ticket(token, "dan@example.org", json!({})).await;

    // The contact's tickets, for the contact panel.
    let listed = app
        .get_ok(
            &format!(
                "/api/tickets?requesterId={}",
                contact["id"].as_str().unwrap()
            ),
            token,
        )
        .await;
    let mut listed = ids(&listed, "tickets");
    listed.sort();
    let mut expected = vec![id(&ticket), id(&by_id)];
    expected.sort();
    assert_eq!(listed, expected);
    assert!(!listed.contains(&id(&other)));

    // Refused, and nothing is made: no requester and no conversation, an unknown or another
    // workspace's contact, another workspace's conversation, both ways at once.
    let elsewhere = app.owner_with_workspace("ticket-elsewhere").await;
    let foreign = app
        .start_conversation(&elsewhere.workspace_token, "eve@example.org", "Hi")
        .await;
    let before = app.get_ok("/api/tickets", token).await["tickets"]
        .as_array()
        .unwrap()
        .len();
    let refusals = [
        (json!({"subject": "x"}), "requester"),
        (
            json!({"subject": "x", "requester": {"contactId": uuid::Uuid::new_v4()}}),
            "requester.contactId",
        ),
        (
            json!({"subject": "x", "requester": {"contactId": foreign["contact"]["id"]}}),
            "requester.contactId",
        ),
        (
            json!({"subject": "x", "conversationId": foreign["id"]}),
            "conversationId",
        ),
    ];
    for (body, field) in refusals {
        let response = app.post_json("/api/tickets", &body, Some(token)).await;
        let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
        assert!(problem["errors"][field].is_array(), "{body}: {problem}");
    }
    let both = json!({"subject": "x", "requester": {"contactId": contact["id"], "email": "a@example.org"}});
    let response = app.post_json("/api/tickets", &both, Some(token)).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let after = app.get_ok("/api/tickets", token).await["tickets"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(before, after);
}
