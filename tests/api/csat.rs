//! Customer satisfaction from the widget (`POST /widget/v1/conversation/rating`) and reopening:
//! a visitor rates a resolution once, a message within 7 days reopens the conversation and
//! its next resolution may be rated again, agents see each rating on the conversation, in
//! the event log and on the hub; bad ratings, ratings of nothing and ratings a workspace does
//! not ask for are refused and store nothing.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{assert_problem, spawn_app};
use crate::helpers_widget::SITE;

fn id(value: &Value) -> Uuid {
    value.as_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn a_visitor_rates_each_resolution_once_and_agents_see_it() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("csat-rates").await;
    let token = &owner.workspace_token;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;
    let conversation = app.visitor_said(&visitor, "My parcel is late").await;
    let mut hub = app.hub(token).await;

    let current = app.visitor_conversation(&visitor).await;
    assert_eq!(current["status"], "open");
    assert_eq!(current["askForRating"], false, "{current}");
    assert_eq!(current["resolvedAt"], Value::Null);

    let resolved = app.set_status(&owner, conversation, "resolved").await;
    let resolved_at = resolved["resolvedAt"].as_str().unwrap().to_owned();
    assert_eq!(resolved["ratings"], json!([]));
    let current = app.visitor_conversation(&visitor).await;
    assert_eq!(current["id"], conversation.to_string(), "still theirs");
    assert_eq!(current["status"], "resolved");
    assert_eq!(current["askForRating"], true, "{current}");
    assert_eq!(current["rating"], Value::Null);
    assert_eq!(current["messages"].as_array().unwrap().len(), 1);

    let response = app
        .visitor_rates(
            &visitor,
            &json!({"rating": 5, "comment": "  Fast, thanks!  "}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let rating: Value = response.json().await.unwrap();
    assert_eq!(rating["rating"], 5);
    assert_eq!(rating["comment"], "Fast, thanks!");
    assert_eq!(rating["resolvedAt"], resolved_at.as_str());

    let heard = hub.event_named("ConversationRated").await;
    assert_eq!(heard["conversationId"], conversation.to_string(), "{heard}");
    assert_eq!(heard["rating"]["id"], rating["id"]);
    assert!(heard["seq"].as_i64().is_some(), "{heard}");

    let seen = app
        .get_ok(&format!("/api/conversations/{conversation}"), token)
        .await;
    assert_eq!(seen["ratings"], json!([rating.clone()]), "{seen}");
    let listed = app
        .get_ok("/api/conversations?status=resolved", token)
        .await;
    assert_eq!(listed["conversations"][0]["ratings"][0]["rating"], 5);
    let events = app.get_ok("/api/events?after=0&limit=100", token).await;
    let rated: Vec<&Value> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "conversation.rated")
        .collect();
    assert_eq!(rated.len(), 1, "{events}");
    assert_eq!(rated[0]["data"]["rating"], rating);
    assert_eq!(rated[0]["data"]["contactId"], seen["contact"]["id"]);
    assert_eq!(rated[0]["actor"]["kind"], "visitor");
    let activity = app
        .get_ok(
            &format!("/api/conversations/{conversation}/activity"),
            token,
        )
        .await;
    assert!(
        activity["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "conversation.rated"),
        "a line of the conversation's activity: {activity}"
    );

    // Once per resolution.
    let current = app.visitor_conversation(&visitor).await;
    assert_eq!(current["askForRating"], false);
    assert_eq!(
        current["rating"],
        json!({"rating": 5, "comment": "Fast, thanks!"})
    );
    let again = app.visitor_rates(&visitor, &json!({"rating": 1})).await;
    assert_problem(again, StatusCode::CONFLICT, "already_rated").await;

    // Writing again within 7 days reopens the same conversation...
    assert_eq!(
        app.visitor_said(&visitor, "It came, but broken").await,
        conversation
    );
    let reopened = app
        .get_ok(&format!("/api/conversations/{conversation}"), token)
        .await;
    assert_eq!(reopened["status"], "open");
    assert_eq!(reopened["resolvedAt"], Value::Null);
    let updated = hub.event_named("ConversationUpdated").await;
    assert_eq!(updated["status"], "open", "{updated}");
    let open = app.visitor_rates(&visitor, &json!({"rating": 2})).await;
    assert_problem(open, StatusCode::CONFLICT, "nothing_to_rate").await;

    // ...and its next resolution is rated on its own.
    app.set_status(&owner, conversation, "resolved").await;
    let response = app.visitor_rates(&visitor, &json!({"rating": 3})).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let seen = app
        .get_ok(&format!("/api/conversations/{conversation}"), token)
        .await;
    let ratings = seen["ratings"].as_array().unwrap();
    assert_eq!(ratings.len(), 2, "{seen}");
    assert_eq!(
        (ratings[0]["rating"].clone(), ratings[1]["rating"].clone()),
        (json!(5), json!(3))
    );
    assert_ne!(ratings[0]["resolvedAt"], ratings[1]["resolvedAt"]);
    assert_eq!(ratings[1]["comment"], Value::Null);

    // Resolving a resolved conversation again keeps the resolution (and its rating).
    let again = app.set_status(&owner, conversation, "resolved").await;
    assert_eq!(again["resolvedAt"], ratings[1]["resolvedAt"]);
    assert_eq!(
        app.visitor_conversation(&visitor).await["askForRating"],
        false
    );
}

#[tokio::test]
async fn seven_days_after_a_resolution_a_message_opens_a_new_conversation() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("csat-reopen-window").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;
    let first = app.visitor_said(&visitor, "Question one").await;
    app.set_status(&owner, first, "resolved").await;

    app.age_resolution(&owner, first, 6).await;
    assert_eq!(
        app.visitor_conversation(&visitor).await["id"],
        first.to_string(),
        "six days on, still theirs to reopen"
    );
    app.age_resolution(&owner, first, 2).await;
    assert_eq!(app.visitor_conversation(&visitor).await, Value::Null);
    let late = app.visitor_rates(&visitor, &json!({"rating": 4})).await;
    assert_problem(late, StatusCode::CONFLICT, "nothing_to_rate").await;

    let second = app.visitor_said(&visitor, "Question two").await;
    assert_ne!(second, first);
    let old = app
        .get_ok(
            &format!("/api/conversations/{first}"),
            &owner.workspace_token,
        )
        .await;
    assert_eq!(old["status"], "resolved", "the old one stays resolved");
    assert_eq!(old["ratings"], json!([]));
}

#[tokio::test]
async fn bad_ratings_and_ratings_of_nothing_are_refused_and_store_nothing() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("csat-refusals").await;
    let token = &owner.workspace_token;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;

    // No conversation yet, then one not resolved.
    let none = app.visitor_rates(&visitor, &json!({"rating": 5})).await;
    assert_problem(none, StatusCode::CONFLICT, "nothing_to_rate").await;
    let conversation = app.visitor_said(&visitor, "Hello").await;
    let open = app.visitor_rates(&visitor, &json!({"rating": 5})).await;
    assert_problem(open, StatusCode::CONFLICT, "nothing_to_rate").await;
    app.set_status(&owner, conversation, "resolved").await;

    for rating in [
        json!({"rating": 0}),
        json!({"rating": 6}),
        json!({"rating": -3}),
    ] {
        let response = app.visitor_rates(&visitor, &rating).await;
        let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
        assert!(problem["errors"]["rating"].is_array(), "{problem}");
    }
    let long = json!({"rating": 4, "comment": "x".repeat(2001)});
    let response = app.visitor_rates(&visitor, &long).await;
    let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
    assert!(problem["errors"]["comment"].is_array(), "{problem}");
    for body in [
        json!({}),
        json!({"rating": 4.5}),
        json!({"rating": "5"}),
        json!({"rating": 5, "stars": 5}),
        json!({"rating": 5, "comment": 7}),
    ] {
        let response = app.visitor_rates(&visitor, &body).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{body}");
    }
    let malformed = app
        .client
        .post(app.url("/widget/v1/conversation/rating"))
        .bearer_auth(&visitor.token)
        .header("content-type", "application/json")
        .body("{\"rating\": ")
        .send()
        .await
        .unwrap();
    assert_problem(malformed, StatusCode::BAD_REQUEST, "malformed_json").await;

    // Only a visitor rates: an agent's token is refused, and so is no token.
    let agent = app
        .send(
            Method::POST,
            "/widget/v1/conversation/rating",
            Some(&json!({"rating": 5})),
            Some(token),
        )
        .await;
    assert!(
        matches!(
            agent.status(),
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN
        ),
        "{}",
        agent.status()
    );
    let anonymous = app
        .send(
            Method::POST,
            "/widget/v1/conversation/rating",
            Some(&json!({"rating": 5})),
            None,
        )
        .await;
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);

    // Another visitor has nothing to rate, whatever this one has.
    let stranger = app.visitor(&site_key, None).await;
    let theirs = app.visitor_rates(&stranger, &json!({"rating": 1})).await;
    assert_problem(theirs, StatusCode::CONFLICT, "nothing_to_rate").await;

    // A workspace that does not ask: the widget does not ask, a rating is refused.
    app.json_ok(
        Method::PATCH,
        "/api/settings",
        &json!({"inbox": {"csatOnResolve": false}}),
        token,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        app.visitor_conversation(&visitor).await["askForRating"],
        false
    );
    let off = app.visitor_rates(&visitor, &json!({"rating": 5})).await;
    assert_problem(off, StatusCode::CONFLICT, "ratings_off").await;

    let seen = app
        .get_ok(&format!("/api/conversations/{conversation}"), token)
        .await;
    assert_eq!(seen["ratings"], json!([]), "nothing stored: {seen}");
    let events = app.get_ok("/api/events?after=0&limit=100", token).await;
    assert!(
        !events.to_string().contains("conversation.rated"),
        "nothing recorded"
    );

    // Asked again, the same resolution may be rated.
    app.json_ok(
        Method::PATCH,
        "/api/settings",
        &json!({"inbox": {"csatOnResolve": true}}),
        token,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        app.visitor_conversation(&visitor).await["askForRating"],
        true
    );
    let response = app.visitor_rates(&visitor, &json!({"rating": 4})).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let rating: Value = response.json().await.unwrap();
    let seen = app
        .get_ok(&format!("/api/conversations/{conversation}"), token)
        .await;
    assert_eq!(id(&seen["ratings"][0]["id"]), id(&rating["id"]));
}
