//! Labels: Owners keep the workspace's set, agents put them on conversations; the inbox and
//! the search filter by them, and a change of a conversation's labels is an event.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, spawn_app, unique_email};
use crate::helpers_conversations::id;

impl TestApp {
    async fn label(&self, token: &str, name: &str, color: &str) -> Value {
        self.json_ok(
            Method::POST,
            "/api/labels",
            &json!({"name": name, "color": color}),
            token,
            StatusCode::CREATED,
        )
        .await
    }

    async fn set_labels(&self, token: &str, conversation: &str, labels: &[&str]) -> Value {
        self.json_ok(
            Method::PUT,
            &format!("/api/conversations/{conversation}/labels"),
            &json!({"labelIds": labels}),
            token,
            StatusCode::OK,
        )
        .await
    }
}

fn names(conversation: &Value) -> Vec<String> {
    conversation["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn owners_keep_the_set_and_agents_only_read_it() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("labels-set").await;
    let token = owner.workspace_token.as_str();
    let billing = app.label(token, "Billing", "#2563EB").await;
    assert_eq!(billing["color"], "#2563eb", "stored lower case");
    assert!(billing["description"].is_null());
    app.label(token, "bug", "#dc2626").await;

    // Names are unique in any case; bad fields are named, and nothing is written.
    let taken = app
        .post_json(
            "/api/labels",
            &json!({"name": " BILLING ", "color": "#000000"}),
            Some(token),
        )
        .await;
    assert_problem(taken, StatusCode::CONFLICT, "label_name_taken").await;
    let bad = app
        .post_json(
            "/api/labels",
            &json!({"name": "", "color": "blue", "description": "x".repeat(201)}),
            Some(token),
        )
        .await;
    let body = assert_problem(bad, StatusCode::BAD_REQUEST, "validation_failed").await;
    for field in ["name", "color", "description"] {
        assert!(body["errors"][field].is_array(), "{field}: {body}");
    }
    let unknown = app
        .post_json(
            "/api/labels",
            &json!({"name": "x", "color": "#000000", "icon": "x"}),
            Some(token),
        )
        .await;
    assert_eq!(unknown.status(), StatusCode::BAD_REQUEST);
    let listed = app.get_ok("/api/labels", token).await;
    let all: Vec<&str> = listed["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(all, ["Billing", "bug"], "by name, in any case");

    // Renamed, described, then the description cleared.
    let path = format!("/api/labels/{}", id(&billing));
    let renamed = app
        .json_ok(
            Method::PATCH,
            &path,
            &json!({"name": "Payments", "description": "Refunds and invoices"}),
            token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(renamed["name"], "Payments");
    assert_eq!(renamed["color"], "#2563eb");
    assert_eq!(renamed["description"], "Refunds and invoices");
    let cleared = app
        .json_ok(
            Method::PATCH,
            &path,
            &json!({"description": ""}),
            token,
            StatusCode::OK,
        )
        .await;
    assert!(cleared["description"].is_null());
    let clash = app
        .patch_json(&path, &json!({"name": "BUG"}), Some(token))
        .await;
    assert_problem(clash, StatusCode::CONFLICT, "label_name_taken").await;

    // An agent reads the set and changes nothing of it.
    let agent = app.join(&owner, "agent").await;
    assert_eq!(
        app.get_ok("/api/labels", &agent.token).await["labels"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let refused = app
        .post_json(
            "/api/labels",
            &json!({"name": "Mine", "color": "#000000"}),
            Some(&agent.token),
        )
        .await;
    assert_problem(refused, StatusCode::FORBIDDEN, "owner_only").await;
    let refused = app.delete(&path, Some(&agent.token)).await;
    assert_problem(refused, StatusCode::FORBIDDEN, "owner_only").await;

    // Another workspace's label is not found here.
    let other = app.owner_with_workspace("labels-other").await;
    let theirs = app
        .patch_json(
            &path,
            &json!({"name": "Stolen"}),
            Some(&other.workspace_token),
        )
        .await;
    assert_eq!(theirs.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        app.delete(&path, Some(&other.workspace_token))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        app.delete(&path, Some(token)).await.status(),
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        app.delete(&path, Some(token)).await.status(),
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn agents_label_conversations_and_the_inbox_and_search_filter_by_them() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("labels-apply").await;
    let token = owner.workspace_token.as_str();
    let billing = id(&app.label(token, "Billing", "#2563eb").await);
    let urgent = id(&app.label(token, "Urgent", "#dc2626").await);
    let agent = app.join(&owner, "agent").await;
    let first = id(&app
        .start_conversation(token, &unique_email(), "kettle refund")
        .await);
    let second = id(&app
        .start_conversation(token, &unique_email(), "kettle delivery")
        .await);

    let labelled = app
        .set_labels(&agent.token, &first, &[&urgent, &billing, &urgent])
        .await;
    assert_eq!(
        names(&labelled),
        ["Billing", "Urgent"],
        "each once, by name"
    );
    let read = app
        .get_ok(&format!("/api/conversations/{first}"), token)
        .await;
    assert_eq!(names(&read), ["Billing", "Urgent"]);
    assert_eq!(read["labels"][0]["color"], "#2563eb");
    assert!(
        names(
            &app.get_ok(&format!("/api/conversations/{second}"), token)
                .await
        )
        .is_empty()
    );

    // The inbox by label; the search too.
    let listed = app
        .get_ok(&format!("/api/conversations?label={billing}"), token)
        .await;
    let ids: Vec<&str> = listed["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [first.as_str()]);
    assert_eq!(names(&listed["conversations"][0]), ["Billing", "Urgent"]);
    let found = app
        .get_ok(&format!("/api/search?q=kettle&label={billing}"), token)
        .await;
    let results = found["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{found}");
    assert_eq!(results[0]["conversationId"], first.as_str());

    // Replacing the set; an unknown label, or another workspace's, changes nothing.
    let replaced = app.set_labels(token, &first, &[&urgent]).await;
    assert_eq!(names(&replaced), ["Urgent"]);
    let other = app.owner_with_workspace("labels-foreign").await;
    let foreign = id(&app
        .label(&other.workspace_token, "Foreign", "#000000")
        .await);
    for labels in [
        vec![foreign.clone()],
        vec![urgent.clone(), uuid::Uuid::new_v4().to_string()],
    ] {
        let refused = app
            .put_json(
                &format!("/api/conversations/{first}/labels"),
                &json!({"labelIds": labels}),
                Some(token),
            )
            .await;
        let body = assert_problem(refused, StatusCode::BAD_REQUEST, "validation_failed").await;
        assert!(body["errors"]["labelIds"].is_array(), "{body}");
    }
    assert_eq!(
        names(
            &app.get_ok(&format!("/api/conversations/{first}"), token)
                .await
        ),
        ["Urgent"]
    );
    for bad in [
        json!({}),
        json!({"labelIds": "x"}),
        json!({"labelIds": ["not-a-uuid"]}),
    ] {
        let refused = app
            .put_json(
                &format!("/api/conversations/{first}/labels"),
                &bad,
                Some(token),
            )
            .await;
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST, "{bad}");
    }
    let elsewhere = app
        .put_json(
            &format!("/api/conversations/{first}/labels"),
            &json!({"labelIds": []}),
            Some(&other.workspace_token),
        )
        .await;
    assert_eq!(elsewhere.status(), StatusCode::NOT_FOUND);

    // A deleted label comes off its conversations.
    assert_eq!(
        app.delete(&format!("/api/labels/{urgent}"), Some(token))
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
    assert!(
        names(
            &app.get_ok(&format!("/api/conversations/{first}"), token)
                .await
        )
        .is_empty()
    );
}

#[tokio::test]
async fn a_change_of_labels_is_a_conversation_updated_event() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("labels-events").await;
    let token = owner.workspace_token.as_str();
    let vip = id(&app.label(token, "VIP", "#7c3aed").await);
    let conversation = id(&app
        .start_conversation(token, &unique_email(), "hello")
        .await);
    app.set_labels(token, &conversation, &[&vip]).await;
    let log = app.get_ok("/api/events?after=0&limit=200", token).await;
    let updates: Vec<&Value> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "conversation.updated")
        .collect();
    assert_eq!(updates.len(), 1, "{log}");
    let event = updates[0];
    assert_eq!(event["type"], "conversation.updated");
    assert_eq!(event["data"]["change"], "labels");
    assert_eq!(event["data"]["id"], conversation.as_str());
    assert_eq!(event["data"]["labels"][0]["name"], "VIP");
}

#[tokio::test]
async fn agents_label_contacts_and_the_contacts_list_filters_by_them() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("labels-contacts").await;
    let token = owner.workspace_token.as_str();
    let vip = id(&app.label(token, "VIP", "#7c3aed").await);
    let reseller = id(&app.label(token, "Reseller", "#059669").await);
    let agent = app.join(&owner, "agent").await;
    let carla = app
        .start_conversation(token, &unique_email(), "hello")
        .await["contact"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let other = app
        .start_conversation(token, &unique_email(), "hello")
        .await["contact"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = format!("/api/contacts/{carla}/labels");

    let labelled = app
        .json_ok(
            Method::PUT,
            &path,
            &json!({"labelIds": [vip, reseller]}),
            &agent.token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(names(&labelled), ["Reseller", "VIP"]);
    let read = app.get_ok(&format!("/api/contacts/{carla}"), token).await;
    assert_eq!(names(&read), ["Reseller", "VIP"]);
    assert!(
        names(&app.get_ok(&format!("/api/contacts/{other}"), token).await).is_empty(),
        "a contact with no label has an empty list"
    );

    // The contacts list by label; a conversation's contact carries no label list.
    let listed = app
        .get_ok(&format!("/api/contacts?label={vip}"), token)
        .await;
    assert_eq!(
        crate::helpers_conversations::ids(&listed, "contacts"),
        [carla.as_str()]
    );
    let conversations = app.get_ok("/api/conversations", token).await;
    assert!(
        conversations["conversations"][0]["contact"]
            .get("labels")
            .is_none()
    );

    // The event carries the contact with its labels.
    let log = app.get_ok("/api/events?after=0&limit=200", token).await;
    let updated = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|e| e["type"] == "contact.updated")
        .unwrap_or_else(|| panic!("{log}"));
    assert_eq!(updated["data"]["id"], carla.as_str());
    assert_eq!(names(&updated["data"]), ["Reseller", "VIP"]);

    // Unknown labels, too many, another workspace's contact: refused, nothing changed.
    let unknown = app
        .put_json(
            &path,
            &json!({"labelIds": [uuid::Uuid::new_v4()]}),
            Some(token),
        )
        .await;
    assert_problem(unknown, StatusCode::BAD_REQUEST, "validation_failed").await;
    let many: Vec<String> = (0..21).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    let too_many = app
        .put_json(&path, &json!({"labelIds": many}), Some(token))
        .await;
    assert_problem(too_many, StatusCode::BAD_REQUEST, "validation_failed").await;
    let stranger = app.owner_with_workspace("labels-contacts-other").await;
    let elsewhere = app
        .put_json(
            &path,
            &json!({"labelIds": []}),
            Some(&stranger.workspace_token),
        )
        .await;
    assert_eq!(elsewhere.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        names(&app.get_ok(&format!("/api/contacts/{carla}"), token).await),
        ["Reseller", "VIP"]
    );

    // Cleared; a deleted label comes off its contacts.
    app.json_ok(
        Method::PUT,
        &path,
        &json!({"labelIds": [vip]}),
        token,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        app.delete(&format!("/api/labels/{vip}"), Some(token))
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
    assert!(names(&app.get_ok(&format!("/api/contacts/{carla}"), token).await).is_empty());
}
