//! `/api/contacts/{id}`: the contact panel's record, the visitor's context as the widget
//! reports it (`PUT /widget/v1/context`), and agents' corrections of name and email.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app};
use crate::helpers_widget::SITE;

#[tokio::test]
async fn the_contact_panel_shows_what_the_widget_reported_of_the_visit() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("panel").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;
    let conversation = app.visitor_said(&visitor, "Hi").await;
    let contact = app.contact_in(&owner, conversation).await;
    let path = format!("/api/contacts/{}", contact["id"].as_str().unwrap());
    let before = app.get_ok(&path, &owner.workspace_token).await;
    assert!(before["visitor"].is_null());
    assert_eq!(before["displayName"], contact["displayName"]);

    let report = |body: Value| {
        let app = &app;
        let token = visitor.token.clone();
        async move {
            app.client
                .put(app.url("/widget/v1/context"))
                .bearer_auth(token)
                .header(
                    "user-agent",
                    "Mozilla/5.0 (Macintosh) Chrome/120.0 Safari/537.36",
                )
                .json(&body)
                .send()
                .await
                .unwrap()
        }
    };
    let first = report(json!({
        "pageUrl": "https://shop.example/orders/7",
        "pageTitle": "Order 7",
        "referrer": "https://search.example/?q=shoes",
        "timeZone": "Europe/Lisbon",
        "locale": "pt-PT",
    }))
    .await;
    assert_eq!(first.status(), StatusCode::NO_CONTENT);
    // A later page: where they came from stays the first answer.
    let second = report(json!({
        "pageUrl": "https://shop.example/help",
        "referrer": "https://shop.example/orders/7",
    }))
    .await;
    assert_eq!(second.status(), StatusCode::NO_CONTENT);
    let seen = app.get_ok(&path, &owner.workspace_token).await;
    let visit = &seen["visitor"];
    assert_eq!(visit["pageUrl"], "https://shop.example/help");
    assert!(visit["pageTitle"].is_null());
    assert_eq!(visit["referrer"], "https://search.example/?q=shoes");
    assert_eq!(visit["timeZone"], "Europe/Lisbon");
    assert_eq!(visit["locale"], "pt-PT");
    assert!(visit["userAgent"].as_str().unwrap().contains("Chrome/120"));
    assert!(visit["lastSeenAt"].is_string());

    // What is not a web link, or too long, is refused and changes nothing.
    let bad = report(json!({"pageUrl": "javascript:alert(1)"})).await;
    assert_problem(bad, StatusCode::BAD_REQUEST, "validation_failed").await;
    let long = report(json!({"timeZone": "x".repeat(65)})).await;
    assert_eq!(long.status(), StatusCode::BAD_REQUEST);
    let unknown = report(json!({"cookie": "nope"})).await;
    assert_eq!(unknown.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        app.get_ok(&path, &owner.workspace_token).await["visitor"]["pageUrl"],
        "https://shop.example/help"
    );
    // Only a visitor token reports.
    let agent = app
        .put_json(
            "/widget/v1/context",
            &json!({"pageUrl": "https://x.example/"}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(agent.status(), StatusCode::FORBIDDEN);
    let nobody = app.put_json("/widget/v1/context", &json!({}), None).await;
    assert_eq!(nobody.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn agents_correct_a_contacts_name_and_email() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("correct").await;
    let token = owner.workspace_token.as_str();
    let carla = app
        .start_conversation(token, "carla@example.org", "Hi")
        .await;
    app.start_conversation(token, "dan@example.org", "Hi").await;
    let path = format!("/api/contacts/{}", carla["contact"]["id"].as_str().unwrap());

    let renamed = app
        .json_ok(
            Method::PATCH,
            &path,
            &json!({"name": "  Carla Diaz "}),
            token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(renamed["name"], "Carla Diaz");
    assert_eq!(renamed["displayName"], "Carla Diaz");
    let moved = app
        .json_ok(
            Method::PATCH,
            &path,
            &json!({"email": "Carla.D@Example.org"}),
            token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(moved["email"], "carla.d@example.org");

    // Another contact's address, a malformed one, a blank name, removing the only way to
    // know them, unknown fields: refused, and nothing changes.
    let taken = app
        .patch_json(&path, &json!({"email": "dan@example.org"}), Some(token))
        .await;
    assert_problem(taken, StatusCode::CONFLICT, "email_taken").await;
    let malformed = app
        .patch_json(&path, &json!({"email": "nope"}), Some(token))
        .await;
    assert_problem(malformed, StatusCode::BAD_REQUEST, "validation_failed").await;
    let blank = app
        .patch_json(&path, &json!({"name": "  "}), Some(token))
        .await;
    assert_problem(blank, StatusCode::BAD_REQUEST, "validation_failed").await;
    let only_way = app
        .patch_json(&path, &json!({"email": null}), Some(token))
        .await;
    assert_problem(only_way, StatusCode::BAD_REQUEST, "validation_failed").await;
    let unknown = app
        .patch_json(&path, &json!({"phone": "1"}), Some(token))
        .await;
    assert_eq!(unknown.status(), StatusCode::BAD_REQUEST);
    let bad_json = app
        .client
        .patch(app.url(&path))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body("{")
        .send()
        .await
        .unwrap();
    assert_eq!(bad_json.status(), StatusCode::BAD_REQUEST);
    let now = app.get_ok(&path, token).await;
    assert_eq!(
        (now["name"].as_str(), now["email"].as_str()),
        (Some("Carla Diaz"), Some("carla.d@example.org"))
    );

    // The change is in the event log.
    let events = app.get_ok("/api/events?after=0", token).await;
    let updated = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "contact.updated")
        .count();
    assert_eq!(updated, 2);

    // Other workspaces' contacts do not exist here; a user token is no workspace token.
    let other = app.owner_with_workspace("correct-other").await;
    let response = app.get(&path, Some(&other.workspace_token)).await;
    assert_problem(response, StatusCode::NOT_FOUND, "not_found").await;
    let response = app
        .patch_json(&path, &json!({"name": "X"}), Some(&other.workspace_token))
        .await;
    assert_problem(response, StatusCode::NOT_FOUND, "not_found").await;
    let response = app.get(&path, Some(&owner.user_token)).await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    let response = app.get("/api/contacts/not-a-uuid", Some(token)).await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_contact_comes_with_their_newest_conversations_and_tickets() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("activity").await;
    let token = owner.workspace_token.as_str();
    let mut started = Vec::new();
    for n in 0..21 {
        let conversation = app
            .start_conversation(token, "carla@example.org", &format!("Reply {n}"))
            .await;
        started.push(conversation["id"].as_str().unwrap().to_owned());
    }
    app.start_conversation(token, "someone@example.org", "Not hers")
        .await;
    let ticket = app.open_ticket(token, "carla@example.org", json!({})).await;
    app.open_ticket(token, "someone@example.org", json!({}))
        .await;
    let contact_id = ticket["requester"]["id"].as_str().unwrap();

    let carla = app
        .get_ok(&format!("/api/contacts/{contact_id}"), token)
        .await;
    assert_eq!(carla["email"], "carla@example.org");
    // The newest 20 of her 21, most recently active first, and the cursor of the rest.
    let shown: Vec<&str> = carla["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let newest: Vec<&str> = started.iter().rev().take(20).map(String::as_str).collect();
    assert_eq!(shown, newest);
    let cursor = carla["conversationsCursor"].as_str().unwrap();
    let rest = app
        .get_ok(
            &format!("/api/conversations?contactId={contact_id}&cursor={cursor}"),
            token,
        )
        .await;
    let rest: Vec<&str> = rest["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(rest, [started[0].as_str()]);
    // Her one ticket, and no more to page.
    let tickets = carla["tickets"].as_array().unwrap();
    assert_eq!(tickets.len(), 1);
    assert_eq!(tickets[0]["id"], ticket["id"]);
    assert!(carla["ticketsCursor"].is_null());

    // Another workspace's token does not find her.
    let other = app.owner_with_workspace("elsewhere").await;
    let response = app
        .get(
            &format!("/api/contacts/{contact_id}"),
            Some(&other.workspace_token),
        )
        .await;
    assert_problem(response, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn the_contacts_list_finds_by_part_of_a_name_or_an_address_in_pages() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("contacts-list").await;
    let token = owner.workspace_token.as_str();
    let other = app.owner_with_workspace("contacts-list-other").await;
    let start = |token: String, email: &'static str, name: &'static str| {
        let app = &app;
        async move {
            app.json_ok(
                Method::POST,
                "/api/conversations",
                &json!({"contact": {"email": email, "name": name}, "body": "Hello"}),
                &token,
                StatusCode::CREATED,
            )
            .await
        }
    };
    start(token.to_owned(), "carla@shop.example", "Carla Mendes").await;
    start(token.to_owned(), "bruno@shop.example", "Bruno Alves").await;
    start(token.to_owned(), "ana_50%@else.example", "Ana").await;
    start(
        other.workspace_token.clone(),
        "carla@other.example",
        "Carla Other",
    )
    .await;

    let emails = |list: &Value| -> Vec<String> {
        list["contacts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["email"].as_str().unwrap().to_owned())
            .collect()
    };
    let all = app.get_ok("/api/contacts", token).await;
    assert_eq!(
        emails(&all),
        [
            "ana_50%@else.example",
            "bruno@shop.example",
            "carla@shop.example"
        ],
        "newest first, this workspace's only"
    );
    assert!(all["contacts"][0]["labels"].is_array());
    for (q, expected) in [
        ("CARLA", vec!["carla@shop.example"]),
        ("shop.exa", vec!["bruno@shop.example", "carla@shop.example"]),
        ("alves", vec!["bruno@shop.example"]),
        ("50%", vec!["ana_50%@else.example"]),
        ("_", vec!["ana_50%@else.example"]),
        ("nobody", vec![]),
        (
            "  ",
            vec![
                "ana_50%@else.example",
                "bruno@shop.example",
                "carla@shop.example",
            ],
        ),
    ] {
        let found = app
            .get_ok(&format!("/api/contacts?q={}", urlencoding(q)), token)
            .await;
        assert_eq!(emails(&found), expected, "q={q}");
    }

    // Pages follow each other; bad input is a 400.
    let first = app.get_ok("/api/contacts?limit=2", token).await;
    assert_eq!(emails(&first).len(), 2);
    let cursor = first["nextCursor"].as_str().unwrap();
    let second = app
        .get_ok(&format!("/api/contacts?limit=2&cursor={cursor}"), token)
        .await;
    assert_eq!(emails(&second), ["carla@shop.example"]);
    assert!(second["nextCursor"].is_null());
    for bad in [
        "/api/contacts?cursor=nonsense",
        "/api/contacts?limit=0",
        "/api/contacts?label=x",
    ] {
        let refused = app.get(bad, Some(token)).await;
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST, "{bad}");
    }
    let long = app
        .get(&format!("/api/contacts?q={}", "a".repeat(201)), Some(token))
        .await;
    assert_problem(long, StatusCode::BAD_REQUEST, "validation_failed").await;
}

/// `text` for a query string.
fn urlencoding(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}
