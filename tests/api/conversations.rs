//! `/api/conversations*`: the inbox tabs, messages and notes, assignment, status, priority,
//! pagination, tenant isolation, and what deactivating an agent does to their work.

use std::collections::HashSet;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, spawn_app};
use crate::helpers_conversations::{at, id, ids};

#[tokio::test]
async fn an_agent_starts_a_conversation_numbered_per_workspace() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let other = app.owner_with_workspace("globex").await;
    let agent = app.join(&owner, "agent").await;

    let first = app
        .start_conversation(&agent.token, " Carla@Example.org ", "Hello Carla")
        .await;
    assert_eq!(first["number"], 1);
    assert_eq!(first["status"], "open");
    assert_eq!(first["priority"], Value::Null);
    assert_eq!(first["subject"], "Order");
    assert_eq!(
        first["assigneeId"],
        json!(agent.agent_id),
        "the starter owns it"
    );
    assert_eq!(first["contact"]["email"], "carla@example.org");
    assert_eq!(first["contact"]["claimedEmail"], Value::Null);
    assert_eq!(first["contact"]["name"], "Carla");
    assert_eq!(first["lastMessageAt"], first["createdAt"]);
    assert!(first["createdAt"].as_str().unwrap().ends_with('Z'));

    // The same contact, found by email; numbers count up per workspace.
    let second = app
        .json_ok(
            Method::POST,
            "/api/conversations",
            &json!({"contact": {"email": "carla@example.org", "name": "Someone Else"}, "body": "Again"}),
            &owner.workspace_token,
            StatusCode::CREATED,
        )
        .await;
    assert_eq!(second["number"], 2);
    assert_eq!(second["subject"], Value::Null);
    assert_eq!(second["contact"], first["contact"], "a known name is kept");
    let elsewhere = app
        .start_conversation(&other.workspace_token, "carla@example.org", "Hi")
        .await;
    assert_eq!(elsewhere["number"], 1);
    assert_ne!(elsewhere["contact"]["id"], first["contact"]["id"]);

    let got = app
        .get_ok(
            &format!("/api/conversations/{}", id(&first)),
            &owner.workspace_token,
        )
        .await;
    assert_eq!(without_unread(got), first);
    let messages = app
        .get_ok(
            &format!("/api/conversations/{}/messages", id(&first)),
            &agent.token,
        )
        .await;
    assert_eq!(messages["nextCursor"], Value::Null);
    let [message] = messages["messages"].as_array().unwrap().as_slice() else {
        panic!("{messages}")
    };
    assert_eq!(message["kind"], "outgoing");
    assert_eq!(message["body"], "Hello Carla");
    assert_eq!(message["authorAgentId"], json!(agent.agent_id));
    assert_eq!(message["createdAt"], first["createdAt"]);
}

#[tokio::test]
async fn replies_and_notes_are_kept_in_order_and_move_last_message_at() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let me = app.owner_agent(&owner).await;
    let conversation = app
        .start_conversation(&me.token, "carla@example.org", "First")
        .await;
    let path = format!("/api/conversations/{}", id(&conversation));

    let reply = app
        .json_ok(
            Method::POST,
            &format!("{path}/messages"),
            &json!({"body": "  A reply  "}),
            &me.token,
            StatusCode::CREATED,
        )
        .await;
    assert_eq!(reply["kind"], "outgoing");
    assert_eq!(reply["body"], "A reply");
    assert_eq!(reply["authorAgentId"], json!(me.agent_id));
    let note = app
        .json_ok(
            Method::POST,
            &format!("{path}/notes"),
            &json!({"body": "Internal: she is a VIP"}),
            &me.token,
            StatusCode::CREATED,
        )
        .await;
    assert_eq!(note["kind"], "note");
    // A message from the contact (the chat widget's path) moves it too.
    let schema = format!("ws_{}", owner.workspace_id.simple());
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "WITH c AS (UPDATE {schema}.conversations SET last_message_at = now() WHERE id = $1 RETURNING id)
         INSERT INTO {schema}.messages (conversation_id, kind, body) SELECT id, 'incoming', 'Thanks!' FROM c"
    )))
    .bind(uuid::Uuid::parse_str(&id(&conversation)).unwrap())
    .execute(&app.db)
    .await
    .unwrap();

    let now = app.get_ok(&path, &me.token).await;
    assert!(at(&now, "lastMessageAt") > at(&conversation, "lastMessageAt"));
    assert!(at(&now, "lastMessageAt") > at(&note, "createdAt"));

    let page = app
        .get_ok(&format!("{path}/messages?limit=2"), &me.token)
        .await;
    let kinds: Vec<&str> = page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["outgoing", "outgoing"]);
    let cursor = page["nextCursor"].as_str().expect("a next page");
    let rest = app
        .get_ok(
            &format!("{path}/messages?limit=2&cursor={cursor}"),
            &me.token,
        )
        .await;
    let rest_kinds: Vec<&str> = rest["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    assert_eq!(rest_kinds, ["note", "incoming"]);
    assert_eq!(rest["messages"][1]["authorAgentId"], Value::Null);
    assert_eq!(rest["nextCursor"], Value::Null);
}

#[tokio::test]
async fn the_tabs_list_by_assignee_and_status_newest_activity_first() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let me = app.owner_agent(&owner).await;
    let bea = app.join(&owner, "agent").await;
    let mine = app
        .start_conversation(&me.token, "a@example.org", "1")
        .await;
    let beas = app
        .start_conversation(&bea.token, "b@example.org", "2")
        .await;
    let loose = app
        .start_conversation(&me.token, "c@example.org", "3")
        .await;
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{}/assign", id(&loose)),
        &json!({"assigneeId": null}),
        &me.token,
        StatusCode::OK,
    )
    .await;
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{}/status", id(&beas)),
        &json!({"status": "pending"}),
        &bea.token,
        StatusCode::OK,
    )
    .await;

    let tab = |query: &'static str| {
        let app = &app;
        let token = me.token.clone();
        async move {
            ids(
                &app.get_ok(&format!("/api/conversations{query}"), &token)
                    .await,
                "conversations",
            )
        }
    };
    assert_eq!(tab("").await, [id(&loose), id(&beas), id(&mine)]);
    assert_eq!(
        tab("?assignee=all").await,
        [id(&loose), id(&beas), id(&mine)]
    );
    assert_eq!(tab("?assignee=me").await, [id(&mine)]);
    assert_eq!(tab("?assignee=unassigned").await, [id(&loose)]);
    assert_eq!(
        ids(
            &app.get_ok(
                &format!("/api/conversations?assignee={}", bea.agent_id),
                &me.token
            )
            .await,
            "conversations"
        ),
        [id(&beas)]
    );
    assert_eq!(tab("?status=pending").await, [id(&beas)]);
    assert_eq!(tab("?status=open").await, [id(&loose), id(&mine)]);
    assert_eq!(tab("?status=resolved").await, Vec::<String>::new());
    assert_eq!(tab("?status=open&assignee=unassigned").await, [id(&loose)]);
    assert_eq!(
        tab("?status=pending&assignee=me").await,
        Vec::<String>::new()
    );

    // A reply brings a conversation to the top.
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{}/messages", id(&mine)),
        &json!({"body": "News"}),
        &me.token,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(tab("").await, [id(&mine), id(&loose), id(&beas)]);

    for bad in [
        "?status=closed",
        "?status=OPEN",
        "?limit=0",
        "?limit=201",
        "?limit=many",
        "?cursor=bm9wZQ",
        "?assignee=nobody",
    ] {
        let response = app
            .get(&format!("/api/conversations{bad}"), Some(&me.token))
            .await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{bad}");
    }
    assert_problem(
        app.get("/api/conversations?limit=201", Some(&me.token))
            .await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
    )
    .await;
    assert_problem(
        app.get("/api/conversations?cursor=bm9wZQ", Some(&me.token))
            .await,
        StatusCode::BAD_REQUEST,
        "invalid_cursor",
    )
    .await;
    assert_problem(
        app.get("/api/conversations?status=closed", Some(&me.token))
            .await,
        StatusCode::BAD_REQUEST,
        "invalid_query",
    )
    .await;
}

#[tokio::test]
async fn assignment_takes_active_agents_only() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let other = app.owner_with_workspace("globex").await;
    let stranger = app.owner_agent(&other).await;
    let me = app.owner_agent(&owner).await;
    let bea = app.join(&owner, "agent").await;
    let gone = app.join(&owner, "agent").await;
    app.deactivate(&owner, gone.agent_id).await;
    let conversation = app
        .start_conversation(&me.token, "a@example.org", "1")
        .await;
    let assign = format!("/api/conversations/{}/assign", id(&conversation));

    // Any agent may hand it to another, or take it.
    let to_bea = app
        .json_ok(
            Method::POST,
            &assign,
            &json!({"assigneeId": bea.agent_id}),
            &me.token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(to_bea["assigneeId"], json!(bea.agent_id));
    assert!(at(&to_bea, "updatedAt") >= at(&conversation, "updatedAt"));
    let to_me = app
        .json_ok(
            Method::POST,
            &assign,
            &json!({"assigneeId": me.agent_id}),
            &bea.token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(to_me["assigneeId"], json!(me.agent_id));

    for (assignee, why) in [
        (json!(gone.agent_id), "deactivated"),
        (json!(stranger.agent_id), "another workspace's agent"),
        (json!(uuid::Uuid::new_v4()), "unknown"),
    ] {
        let body = assert_problem(
            app.send(
                Method::POST,
                &assign,
                Some(&json!({ "assigneeId": assignee })),
                Some(&me.token),
            )
            .await,
            StatusCode::BAD_REQUEST,
            "validation_failed",
        )
        .await;
        assert!(body["errors"]["assigneeId"].is_array(), "{why}: {body}");
    }
    for (body, code) in [
        (json!({}), "invalid_body"),
        (json!({"assigneeId": "me"}), "invalid_body"),
        (json!({"assigneeId": null, "extra": 1}), "invalid_body"),
    ] {
        assert_problem(
            app.send(Method::POST, &assign, Some(&body), Some(&me.token))
                .await,
            StatusCode::BAD_REQUEST,
            code,
        )
        .await;
    }
    let unassigned = app
        .json_ok(
            Method::POST,
            &assign,
            &json!({"assigneeId": null}),
            &me.token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(unassigned["assigneeId"], Value::Null);
}

#[tokio::test]
async fn status_and_priority_change_and_refuse_unknown_values() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let me = app.owner_agent(&owner).await;
    let conversation = app
        .start_conversation(&me.token, "a@example.org", "1")
        .await;
    let path = format!("/api/conversations/{}", id(&conversation));

    for status in ["pending", "resolved", "open"] {
        let changed = app
            .json_ok(
                Method::POST,
                &format!("{path}/status"),
                &json!({ "status": status }),
                &me.token,
                StatusCode::OK,
            )
            .await;
        assert_eq!(changed["status"], status);
        assert_eq!(
            changed["lastMessageAt"], conversation["lastMessageAt"],
            "not a message"
        );
    }
    for priority in [json!("urgent"), json!("low"), Value::Null] {
        let changed = app
            .json_ok(
                Method::POST,
                &format!("{path}/priority"),
                &json!({ "priority": priority }),
                &me.token,
                StatusCode::OK,
            )
            .await;
        assert_eq!(changed["priority"], priority);
    }
    for (route, body) in [
        ("status", json!({"status": "closed"})),
        ("status", json!({"status": "Open"})),
        ("status", json!({"status": null})),
        ("status", json!({})),
        ("priority", json!({"priority": "critical"})),
        ("priority", json!({})),
    ] {
        let response = app
            .send(
                Method::POST,
                &format!("{path}/{route}"),
                Some(&body),
                Some(&me.token),
            )
            .await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{body}");
    }
    let unchanged = app.get_ok(&path, &me.token).await;
    assert_eq!(
        (unchanged["status"].as_str(), unchanged["priority"].as_str()),
        (Some("open"), None)
    );
}

#[tokio::test]
async fn bodies_are_checked() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let token = &owner.workspace_token;
    let conversation = app.start_conversation(token, "a@example.org", "1").await;
    let messages = format!("/api/conversations/{}/messages", id(&conversation));

    // Not JSON, not the right shape, not JSON at all.
    let malformed = app
        .client
        .post(app.url("/api/conversations"))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body("{\"contact\":")
        .send()
        .await
        .unwrap();
    assert_problem(malformed, StatusCode::BAD_REQUEST, "malformed_json").await;
    let plain = app
        .client
        .post(app.url(&messages))
        .bearer_auth(token)
        .body("hello")
        .send()
        .await
        .unwrap();
    assert_problem(
        plain,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    )
    .await;
    for body in [
        json!({"contact": {"email": "a@example.org"}}),
        json!({"body": "hi"}),
        json!({"contact": {}, "body": "hi"}),
        json!({"contact": {"email": "a@example.org"}, "body": "hi", "cc": []}),
    ] {
        assert_problem(
            app.send(Method::POST, "/api/conversations", Some(&body), Some(token))
                .await,
            StatusCode::BAD_REQUEST,
            "invalid_body",
        )
        .await;
    }
    let invalid = assert_problem(
        app.send(
            Method::POST,
            "/api/conversations",
            Some(&json!({
                "contact": {"email": "not an email", "name": "x".repeat(201)},
                "subject": "s".repeat(256),
                "body": "   "
            })),
            Some(token),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
    )
    .await;
    let fields: HashSet<&str> = invalid["errors"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        fields,
        HashSet::from(["contact.email", "contact.name", "subject", "body"])
    );
    for path in [messages.clone(), messages.replace("messages", "notes")] {
        assert_problem(
            app.send(
                Method::POST,
                &path,
                Some(&json!({"body": " "})),
                Some(token),
            )
            .await,
            StatusCode::BAD_REQUEST,
            "validation_failed",
        )
        .await;
        assert_problem(
            app.send(Method::POST, &path, Some(&json!({})), Some(token))
                .await,
            StatusCode::BAD_REQUEST,
            "invalid_body",
        )
        .await;
    }
}

#[tokio::test]
async fn only_workspace_tokens_of_members_reach_conversations() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let key = app.api_key(&owner.workspace_token).await.1;
    let gone = app.join(&owner, "agent").await;
    let conversation = app
        .start_conversation(&gone.token, "a@example.org", "1")
        .await;
    app.deactivate(&owner, gone.agent_id).await;
    let path = format!("/api/conversations/{}", id(&conversation));

    for (token, status, code) in [
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
        (
            Some(gone.token.as_str()),
            StatusCode::FORBIDDEN,
            "membership_deactivated",
        ),
    ] {
        for (method, route, body) in [
            (Method::GET, "/api/conversations".to_owned(), None),
            (
                Method::POST,
                "/api/conversations".to_owned(),
                Some(json!({"contact": {"email": "b@example.org"}, "body": "x"})),
            ),
            (Method::GET, path.clone(), None),
            (Method::GET, format!("{path}/messages"), None),
            (
                Method::POST,
                format!("{path}/messages"),
                Some(json!({"body": "x"})),
            ),
            (
                Method::POST,
                format!("{path}/notes"),
                Some(json!({"body": "x"})),
            ),
            (
                Method::POST,
                format!("{path}/assign"),
                Some(json!({"assigneeId": null})),
            ),
            (
                Method::POST,
                format!("{path}/status"),
                Some(json!({"status": "open"})),
            ),
            (
                Method::POST,
                format!("{path}/priority"),
                Some(json!({"priority": null})),
            ),
        ] {
            assert_problem(
                app.send(method, &route, body.as_ref(), token).await,
                status,
                code,
            )
            .await;
        }
    }
}

#[tokio::test]
async fn another_workspaces_conversations_do_not_exist_here() {
    let app = spawn_app().await;
    let acme = app.owner_with_workspace("acme").await;
    let globex = app.owner_with_workspace("globex").await;
    let theirs = app
        .start_conversation(&globex.workspace_token, "a@example.org", "secret")
        .await;
    let path = format!("/api/conversations/{}", id(&theirs));
    let token = acme.workspace_token.as_str();

    assert_eq!(
        app.get_ok("/api/conversations", token).await["conversations"],
        json!([])
    );
    let acme_agent = app.owner_agent(&acme).await;
    for (method, route, body) in [
        (Method::GET, path.clone(), None),
        (Method::GET, format!("{path}/messages"), None),
        (
            Method::POST,
            format!("{path}/messages"),
            Some(json!({"body": "x"})),
        ),
        (
            Method::POST,
            format!("{path}/notes"),
            Some(json!({"body": "x"})),
        ),
        (
            Method::POST,
            format!("{path}/assign"),
            Some(json!({"assigneeId": acme_agent.agent_id})),
        ),
        (
            Method::POST,
            format!("{path}/status"),
            Some(json!({"status": "resolved"})),
        ),
        (
            Method::POST,
            format!("{path}/priority"),
            Some(json!({"priority": "high"})),
        ),
        (
            Method::GET,
            "/api/conversations/not-a-uuid".to_owned(),
            None,
        ),
    ] {
        assert_problem(
            app.send(method.clone(), &route, body.as_ref(), Some(token))
                .await,
            StatusCode::NOT_FOUND,
            "not_found",
        )
        .await;
    }
    // Untouched in its own workspace.
    let still = app.get_ok(&path, &globex.workspace_token).await;
    assert_eq!(without_unread(still), theirs);
    let messages = app
        .get_ok(&format!("{path}/messages"), &globex.workspace_token)
        .await;
    assert_eq!(messages["messages"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn pages_neither_repeat_nor_skip_while_conversations_arrive() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let token = owner.workspace_token.clone();
    let mut existing = HashSet::new();
    for i in 0..30 {
        let c = app
            .start_conversation(&token, &format!("c{i}@example.org"), "hi")
            .await;
        existing.insert(id(&c));
    }

    // New conversations keep arriving while the inbox is paged through.
    let writer = {
        let app_url = app.url("/api/conversations");
        let client = app.client.clone();
        let token = token.clone();
        tokio::spawn(async move {
            for i in 0..20 {
                let response = client
                    .post(&app_url)
                    .bearer_auth(&token)
                    .json(&json!({"contact": {"email": format!("new{i}@example.org")}, "body": "new"}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(response.status(), StatusCode::CREATED);
            }
        })
    };
    let mut seen = Vec::new();
    let mut last: Option<(time::OffsetDateTime, String)> = None;
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(cursor) => format!("/api/conversations?limit=7&cursor={cursor}"),
            None => "/api/conversations?limit=7".to_owned(),
        };
        let page = app.get_ok(&path, &token).await;
        for c in page["conversations"].as_array().unwrap() {
            let key = (at(c, "lastMessageAt"), id(c));
            if let Some(last) = &last {
                assert!(key < *last, "newest activity first: {key:?} after {last:?}");
            }
            last = Some(key);
            seen.push(id(c));
        }
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
        tokio::task::yield_now().await;
    }
    writer.await.unwrap();

    let unique: HashSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no conversation twice");
    for id in &existing {
        assert!(seen.contains(id), "{id} was skipped");
    }
}

#[tokio::test]
async fn deactivating_an_agent_releases_their_open_work_and_keeps_their_history() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let me = app.owner_agent(&owner).await;
    let bea = app.join(&owner, "agent").await;
    let open = app
        .start_conversation(&bea.token, "a@example.org", "1")
        .await;
    let pending = app
        .start_conversation(&bea.token, "b@example.org", "2")
        .await;
    let resolved = app
        .start_conversation(&bea.token, "c@example.org", "3")
        .await;
    let others = app
        .start_conversation(&me.token, "d@example.org", "4")
        .await;
    for (conversation, status) in [(&pending, "pending"), (&resolved, "resolved")] {
        app.json_ok(
            Method::POST,
            &format!("/api/conversations/{}/status", id(conversation)),
            &json!({ "status": status }),
            &bea.token,
            StatusCode::OK,
        )
        .await;
    }
    let note = app
        .json_ok(
            Method::POST,
            &format!("/api/conversations/{}/notes", id(&others)),
            &json!({"body": "Bea was here"}),
            &bea.token,
            StatusCode::CREATED,
        )
        .await;
    let assigned = || json!({"assigneeId": bea.agent_id});
    let ticket_open = app
        .open_ticket(&me.token, "a@example.org", assigned())
        .await;
    let ticket_closed = app
        .open_ticket(&me.token, "b@example.org", assigned())
        .await;
    app.json_ok(
        Method::PATCH,
        &format!("/api/tickets/{}", id(&ticket_closed)),
        &json!({"status": "closed"}),
        &me.token,
        StatusCode::OK,
    )
    .await;
    let comment = app
        .json_ok(
            Method::POST,
            &format!("/api/tickets/{}/comments", id(&ticket_open)),
            &json!({"body": "On it"}),
            &bea.token,
            StatusCode::CREATED,
        )
        .await;

    app.deactivate(&owner, bea.agent_id).await;

    let unassigned = ids(
        &app.get_ok("/api/conversations?assignee=unassigned", &me.token)
            .await,
        "conversations",
    );
    assert_eq!(unassigned, [id(&pending), id(&open)]);
    let beas = app
        .get_ok(
            &format!("/api/conversations?assignee={}", bea.agent_id),
            &me.token,
        )
        .await;
    assert_eq!(ids(&beas, "conversations"), [id(&resolved)], "history");
    let ticket = app
        .get_ok(&format!("/api/tickets/{}", id(&ticket_open)), &me.token)
        .await;
    assert_eq!(ticket["assigneeId"], Value::Null);
    let closed = app
        .get_ok(&format!("/api/tickets/{}", id(&ticket_closed)), &me.token)
        .await;
    assert_eq!(closed["assigneeId"], json!(bea.agent_id));

    // Everything Bea wrote is still hers.
    let messages = app
        .get_ok(
            &format!("/api/conversations/{}/messages", id(&open)),
            &me.token,
        )
        .await;
    assert_eq!(
        messages["messages"][0]["authorAgentId"],
        json!(bea.agent_id)
    );
    let notes = app
        .get_ok(
            &format!("/api/conversations/{}/messages", id(&others)),
            &me.token,
        )
        .await;
    assert_eq!(notes["messages"][1], note);
    let comments = app
        .get_ok(
            &format!("/api/tickets/{}/comments", id(&ticket_open)),
            &me.token,
        )
        .await;
    assert_eq!(comments["comments"], json!([comment]));

    // And nothing can be handed to her any more.
    assert_problem(
        app.send(
            Method::POST,
            &format!("/api/conversations/{}/assign", id(&open)),
            Some(&json!({"assigneeId": bea.agent_id})),
            Some(&me.token),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
    )
    .await;

    // Her resolved work, reopened, is new work: it goes to the Unassigned tab, not to her.
    let reopened = app
        .json_ok(
            Method::POST,
            &format!("/api/conversations/{}/status", id(&resolved)),
            &json!({ "status": "open" }),
            &me.token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(reopened["assigneeId"], Value::Null, "{reopened}");
    let reopened = app
        .json_ok(
            Method::PATCH,
            &format!("/api/tickets/{}", id(&ticket_closed)),
            &json!({"status": "open"}),
            &me.token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(reopened["assigneeId"], Value::Null, "{reopened}");
    // An active agent's reopened work stays theirs.
    let mine = app
        .start_conversation(&me.token, "e@example.org", "5")
        .await;
    assert!(mine["assigneeId"].is_string(), "{mine}");
    for status in ["resolved", "open"] {
        let changed = app
            .json_ok(
                Method::POST,
                &format!("/api/conversations/{}/status", id(&mine)),
                &json!({ "status": status }),
                &me.token,
                StatusCode::OK,
            )
            .await;
        assert_eq!(changed["assigneeId"], mine["assigneeId"], "{changed}");
    }
}

/// Counts sessions of this database waiting for a lock in a statement containing `sql`.
/// Sessions waiting for a lock while running a statement containing `sql`. On a Citus
/// cluster the wait is on the worker node, in the statement the coordinator sent it (shard
/// names, values in place of parameters): there `shard_sql` is looked for, in the cluster's
/// own view of every node's sessions.
async fn waiting(app: &TestApp, sql: &str, shard_sql: &str) -> i64 {
    let (view, fragment) = if supportdesk_test_support::citus::cluster_mode() {
        ("citus_stat_activity", shard_sql)
    } else {
        ("pg_stat_activity", sql)
    };
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM {view}
          WHERE datname = current_database() AND wait_event_type = 'Lock'
            AND strpos(query, $1) > 0"
    )))
    .bind(fragment)
    .fetch_one(&app.db)
    .await
    .unwrap()
}

async fn eventually(what: &str, mut done: impl AsyncFnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !done().await {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting: {what}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn an_assignment_racing_the_agents_deactivation_is_released_with_the_rest() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let me = app.owner_agent(&owner).await;
    let bea = app.join(&owner, "agent").await;
    let conversation = app
        .start_conversation(&me.token, "a@example.org", "x")
        .await;
    let conversation_id: uuid::Uuid = id(&conversation).parse().unwrap();

    // Hold the conversation's row, so the assignment stops after its check of Bea and before
    // its write; deactivate Bea meanwhile; then let the assignment finish.
    let mut blocker = app.db.begin().await.unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT 1 FROM ws_{}.conversations WHERE id = $1 FOR UPDATE",
        owner.workspace_id.simple()
    )))
    .bind(conversation_id)
    .execute(&mut *blocker)
    .await
    .unwrap();
    let assignment = tokio::spawn(
        app.client
            .post(app.url(&format!("/api/conversations/{conversation_id}/assign")))
            .bearer_auth(&me.token)
            .json(&json!({"assigneeId": bea.agent_id}))
            .send(),
    );
    eventually("the assignment waits for the row", async || {
        waiting(
            &app,
            ".conversations SET assignee_id = $2",
            "SET assignee_id",
        )
        .await
            == 1
    })
    .await;
    let deactivation = tokio::spawn(
        app.client
            .post(app.url(&format!("/api/agents/{}/deactivate", bea.agent_id)))
            .bearer_auth(&owner.workspace_token)
            .send(),
    );
    eventually("the deactivation waits or is done", async || {
        deactivation.is_finished() || waiting(&app, ".agent_profiles", "agent_profiles").await == 1
    })
    .await;
    blocker.commit().await.unwrap();

    assert_eq!(assignment.await.unwrap().unwrap().status(), StatusCode::OK);
    assert_eq!(
        deactivation.await.unwrap().unwrap().status(),
        StatusCode::OK
    );
    let now = app
        .get_ok(&format!("/api/conversations/{conversation_id}"), &me.token)
        .await;
    assert_eq!(
        now["assigneeId"],
        Value::Null,
        "left with a deactivated agent"
    );
}

#[tokio::test]
async fn every_new_route_is_in_the_openapi_document() {
    let app = spawn_app().await;
    let doc: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    for (path, methods) in [
        ("/api/conversations", &["get", "post"][..]),
        ("/api/conversations/{id}", &["get"]),
        ("/api/conversations/{id}/messages", &["get", "post"]),
        ("/api/conversations/{id}/notes", &["post"]),
        ("/api/conversations/{id}/assign", &["post"]),
        ("/api/conversations/{id}/status", &["post"]),
        ("/api/conversations/{id}/priority", &["post"]),
        ("/api/tickets", &["get", "post"]),
        ("/api/tickets/{id}", &["get", "patch"]),
        ("/api/tickets/{id}/resolve", &["post"]),
        ("/api/tickets/{id}/comments", &["get", "post"]),
        ("/api/canned-responses", &["get", "post"]),
        ("/api/canned-responses/{id}", &["get", "patch", "delete"]),
        ("/api/canned-responses/{id}/render", &["post"]),
    ] {
        for method in methods {
            let operation = &doc["paths"][path][method];
            assert!(operation.is_object(), "{method} {path} is not documented");
            assert_eq!(
                operation["security"],
                json!([{"bearer": []}]),
                "{method} {path}"
            );
        }
    }
    // Filters and pages are optional query parameters.
    for path in ["/api/conversations", "/api/tickets"] {
        let parameters = doc["paths"][path]["get"]["parameters"].as_array().unwrap();
        let names: Vec<&str> = parameters
            .iter()
            .map(|p| {
                assert_eq!(
                    (&p["in"], &p["required"]),
                    (&json!("query"), &json!(false)),
                    "{p}"
                );
                p["name"].as_str().unwrap()
            })
            .collect();
        let filters: &[&str] = if path == "/api/conversations" {
            &[
                "status",
                "assignee",
                "label",
                "channel",
                "priority",
                "createdAfter",
                "createdBefore",
                "updatedAfter",
                "updatedBefore",
                "unread",
                "contactId",
                "limit",
                "cursor",
            ]
        } else {
            &["status", "assignee", "requesterId", "limit", "cursor"]
        };
        assert_eq!(names, filters, "{path}");
    }
}

/// A conversation as a change answers it: reads carry the caller's `unreadCount`, the answers
/// of changes (and events) the conversation as the change recorded it.
fn without_unread(mut conversation: Value) -> Value {
    if let Some(fields) = conversation.as_object_mut() {
        fields.remove("unreadCount");
    }
    conversation
}
