//! `POST /widget/v1/sessions` and the visitor token: the origin check and CORS (preflight
//! included), site keys, anonymous and HMAC-identified visitors, the session limit, and
//! visitor tokens kept apart from people's tokens.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use supportdesk::credentials::widget_identity::signature;

use crate::helpers::{JWT_SECRET, assert_problem, spawn_app};
use crate::helpers_widget::{SITE, WIDGET};

#[tokio::test]
async fn a_session_needs_a_known_site_key_from_an_allowed_origin() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-sessions").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let branding = json!({"branding": {"name": "Acme Help", "color": "#1F6FEB", "widgetGreeting": "Hi there!"}});
    let response = app
        .patch_json("/api/settings", &branding, Some(&owner.workspace_token))
        .await;
    assert_eq!(response.status(), StatusCode::OK);

    let response = app
        .start_session(Some(SITE), &json!({"siteKey": site_key}))
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let session: Value = response.json().await.unwrap();
    assert!(session["token"].as_str().is_some_and(|t| t.len() > 100));
    assert!(
        session["visitorId"]
            .as_str()
            .unwrap()
            .parse::<uuid::Uuid>()
            .is_ok()
    );
    assert!(session["expiresAt"].as_str().is_some());
    assert_eq!(session["workspace"]["name"], "Workspace widget-sessions");
    assert_eq!(session["workspace"]["branding"]["name"], "Acme Help");
    assert_eq!(session["workspace"]["branding"]["color"], "#1f6feb");
    assert_eq!(
        session["workspace"]["branding"]["widgetGreeting"],
        "Hi there!"
    );
    assert_eq!(session["agentsOnline"], false);

    // The browser keeps its visitor id: the same contact comes back; an id we never gave is
    // replaced by a new one.
    let visitor_id = session["visitorId"].as_str().unwrap();
    let again = app.visitor(&site_key, Some(visitor_id)).await;
    assert_eq!(again.visitor_id, visitor_id);
    let made_up = uuid::Uuid::new_v4().to_string();
    let fresh = app.visitor(&site_key, Some(&made_up)).await;
    assert_ne!(fresh.visitor_id, made_up);
    assert_eq!(contacts(&app, &owner).await, 2, "one contact per visitor");

    let body = json!({"siteKey": site_key});
    for origin in [
        Some("https://evil.example"),
        Some(WIDGET),
        Some("null"),
        None,
    ] {
        let response = app.start_session(origin, &body).await;
        assert_problem(response, StatusCode::FORBIDDEN, "origin_not_allowed").await;
    }
    for key in ["swk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "nonsense", ""] {
        let response = app
            .start_session(Some(SITE), &json!({"siteKey": key}))
            .await;
        assert_problem(response, StatusCode::NOT_FOUND, "not_found").await;
    }
    let response = app
        .client
        .post(app.url("/widget/v1/sessions"))
        .header("origin", SITE)
        .header("content-type", "application/json")
        .body("{\"siteKey\":")
        .send()
        .await
        .unwrap();
    assert_problem(response, StatusCode::BAD_REQUEST, "malformed_json").await;
    for bad in [
        json!({}),
        json!({"siteKey": site_key, "visitorId": "not-a-uuid"}),
        json!({"siteKey": site_key, "extra": true}),
        json!({"siteKey": site_key, "identity": {"email": "a@b.example"}}),
    ] {
        let response = app.start_session(Some(SITE), &bad).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{bad}");
    }
    let bad_identity =
        json!({"siteKey": site_key, "identity": {"externalId": " ", "email": "nope"}});
    let response = app.start_session(Some(SITE), &bad_identity).await;
    let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
    assert!(
        problem["errors"]["identity.externalId"].is_array(),
        "{problem}"
    );
    assert!(problem["errors"]["identity.email"].is_array(), "{problem}");
    assert_eq!(contacts(&app, &owner).await, 2, "nothing stored");

    // A deleted workspace's key names nothing, and its visitors' tokens stop.
    app.delete_workspace(&owner).await;
    let response = app.start_session(Some(SITE), &body).await;
    assert_problem(response, StatusCode::NOT_FOUND, "not_found").await;
    let response = app.get("/widget/v1/conversation", Some(&again.token)).await;
    assert_problem(response, StatusCode::FORBIDDEN, "workspace_deleted").await;
}

#[tokio::test]
async fn cors_allows_the_origins_that_may_use_each_route() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-cors").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;

    let preflight = |path: &'static str, origin: &'static str, method: &'static str| {
        app.client
            .request(Method::OPTIONS, app.url(path))
            .header("origin", origin)
            .header("access-control-request-method", method)
            .header(
                "access-control-request-headers",
                "content-type,authorization",
            )
            .send()
    };
    let allowed = |response: &reqwest::Response| {
        response
            .headers()
            .get("access-control-allow-origin")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };

    // Sessions: origins some workspace allows, and no other.
    let response = preflight("/widget/v1/sessions", SITE, "POST")
        .await
        .unwrap();
    assert!(response.status().is_success(), "{response:?}");
    assert_eq!(allowed(&response).as_deref(), Some(SITE));
    for origin in ["https://evil.example", WIDGET] {
        let response = preflight("/widget/v1/sessions", origin, "POST")
            .await
            .unwrap();
        assert_eq!(allowed(&response), None, "{origin}");
    }
    let response = app
        .start_session(Some(SITE), &json!({"siteKey": site_key}))
        .await;
    assert_eq!(allowed(&response).as_deref(), Some(SITE));
    let response = app
        .start_session(Some("https://evil.example"), &json!({"siteKey": site_key}))
        .await;
    assert_eq!(allowed(&response), None);

    // The visitor's routes and the hub's negotiate: the widget app's origin.
    for (path, method) in [
        ("/widget/v1/conversation", "GET"),
        ("/widget/v1/messages", "POST"),
        ("/widget/v1/contact", "POST"),
        ("/hubs/chat/negotiate", "POST"),
    ] {
        let response = preflight(path, WIDGET, method).await.unwrap();
        assert_eq!(allowed(&response).as_deref(), Some(WIDGET), "{path}");
        let headers = response
            .headers()
            .get("access-control-allow-headers")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase();
        assert!(headers.contains("authorization"), "{path}: {headers}");
        for origin in [SITE, "https://evil.example"] {
            let response = preflight(path, origin, method).await.unwrap();
            assert_eq!(allowed(&response), None, "{path} from {origin}");
        }
    }
    let response = preflight("/hubs/chat/negotiate", "http://desk.test", "POST")
        .await
        .unwrap();
    assert_eq!(
        allowed(&response).as_deref(),
        Some("http://desk.test"),
        "the dashboard's"
    );
}

#[tokio::test]
async fn identified_visitors_are_verified_by_hmac() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-identity").await;
    let token = owner.workspace_token.as_str();
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let session = |identity: Value| json!({"siteKey": site_key, "identity": identity});

    // Verification off: an identity is taken as given, unverified.
    let visitor = app
        .visitor_with(&session(
            json!({"externalId": "u-1", "email": "Carla@Example.org", "name": "Carla"}),
        ))
        .await;
    let conversation = app.visitor_said(&visitor, "Hello from u-1").await;
    let record = app
        .get_ok(&format!("/api/conversations/{conversation}"), token)
        .await;
    assert_eq!(record["contact"]["email"], Value::Null, "a claim only");
    assert_eq!(record["contact"]["claimedEmail"], "carla@example.org");
    assert_eq!(record["contact"]["name"], "Carla");

    let secret = app.identity_secret(&owner).await;
    let on = json!({"identityVerification": {"enabled": true}});
    app.json_ok(
        Method::PATCH,
        "/api/settings/widget",
        &on,
        token,
        StatusCode::OK,
    )
    .await;

    // On: anonymous visitors are still welcome; an identity needs its hash, and the right one.
    app.visitor(&site_key, None).await;
    for identity in [
        json!({"externalId": "u-2"}),
        json!({"externalId": "u-2", "hash": signature(&secret, "u-3")}),
        json!({"externalId": "u-2", "hash": signature("wis_guessed", "u-2")}),
        json!({"externalId": "u-2", "hash": "zz"}),
    ] {
        let response = app
            .start_session(Some(SITE), &session(identity.clone()))
            .await;
        assert_problem(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
    }
    let signed = json!({"externalId": "u-2", "email": "dana@example.org", "hash": signature(&secret, "u-2").to_uppercase()});
    let dana = app.visitor_with(&session(signed.clone())).await;
    let again = app.visitor_with(&session(signed)).await;
    app.visitor_said(&dana, "first").await;
    let thread = app.visitor_conversation(&again).await;
    assert_eq!(
        thread["messages"].as_array().unwrap().len(),
        1,
        "one contact per externalId"
    );

    // A regenerated secret: the old signatures stop.
    app.identity_secret(&owner).await;
    let stale = json!({"externalId": "u-2", "hash": signature(&secret, "u-2")});
    let response = app.start_session(Some(SITE), &session(stale)).await;
    assert_problem(response, StatusCode::UNAUTHORIZED, "unauthorized").await;

    // Turned off again, an unverified claim still cannot take over a verified visitor.
    let off = json!({"identityVerification": {"enabled": false}});
    app.json_ok(
        Method::PATCH,
        "/api/settings/widget",
        &off,
        token,
        StatusCode::OK,
    )
    .await;
    let response = app
        .start_session(Some(SITE), &session(json!({"externalId": "u-2"})))
        .await;
    assert_problem(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

#[tokio::test]
async fn an_identity_cannot_reach_a_contact_by_the_email_it_carries() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-email-takeover").await;
    let agent = app.owner_agent(&owner).await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let secret = app.identity_secret(&owner).await;
    let victim = app
        .start_conversation(
            &agent.token,
            "victim@example.org",
            "Your invoice is attached",
        )
        .await;

    // A real user of the customer's site, validly signed, naming someone else's address.
    let signed = json!({"externalId": "attacker", "email": "victim@example.org",
        "hash": signature(&secret, "attacker")});
    let attacker = app
        .visitor_with(&json!({"siteKey": site_key, "identity": signed}))
        .await;
    assert_eq!(app.visitor_conversation(&attacker).await, Value::Null);
    let own = app.visitor_said(&attacker, "hello").await;
    assert_ne!(own.to_string(), victim["id"].as_str().unwrap());
    assert!(
        !app.visitor_conversation(&attacker)
            .await
            .to_string()
            .contains("invoice")
    );

    // A made-up visitor id is replaced, and hands nothing over.
    let made_up = uuid::Uuid::new_v4().to_string();
    let identified = app
        .visitor_with(&json!({"siteKey": site_key, "visitorId": made_up,
            "identity": {"externalId": "other-user"}}))
        .await;
    assert_ne!(identified.visitor_id, made_up);
}

#[tokio::test]
async fn an_anonymous_visitor_who_signs_in_keeps_the_thread() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-handover").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let anonymous = app.visitor(&site_key, None).await;
    let conversation = app.visitor_said(&anonymous, "before signing in").await;
    let identified = app
        .visitor_with(
            &json!({"siteKey": site_key, "visitorId": anonymous.visitor_id,
            "identity": {"externalId": "u-9", "email": "eve@example.org"}}),
        )
        .await;
    assert_eq!(identified.visitor_id, anonymous.visitor_id);
    let thread = app.visitor_conversation(&identified).await;
    assert_eq!(thread["id"], conversation.to_string());
    let record = app
        .get_ok(
            &format!("/api/conversations/{conversation}"),
            &owner.workspace_token,
        )
        .await;
    assert_eq!(record["contact"]["claimedEmail"], "eve@example.org");

    // Recorded once, as an open dashboard folds it in: the conversation with its new contact.
    let events = app.events_after(0, &owner.workspace_token).await;
    let handed: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "conversation.updated" && e["data"]["change"] == "contact")
        .collect();
    assert_eq!(handed.len(), 1, "{events:#?}");
    assert_eq!(handed[0]["data"]["id"], conversation.to_string());
    assert_eq!(handed[0]["data"]["contact"]["id"], record["contact"]["id"]);
    assert_eq!(
        handed[0]["data"]["contact"]["claimedEmail"],
        "eve@example.org"
    );
    assert_eq!(handed[0]["actor"]["kind"], "visitor");
    let activity = app
        .get_ok(
            &format!("/api/conversations/{conversation}/activity"),
            &owner.workspace_token,
        )
        .await;
    assert!(
        activity["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["data"]["change"] == "contact"),
        "{activity:#}"
    );
}

#[tokio::test]
async fn sessions_are_limited_per_client_address() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-session-limit").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    for _ in 0..30 {
        app.visitor(&site_key, None).await;
    }
    let response = app
        .start_session(Some(SITE), &json!({"siteKey": site_key}))
        .await;
    let retry_after: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry_after > 0 && retry_after <= 600);
    assert_problem(response, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
}

#[tokio::test]
async fn visitor_tokens_and_people_tokens_never_pass_for_each_other() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-lanes").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;

    for (method, path) in [
        (Method::GET, "/api/conversations"),
        (Method::GET, "/api/agents"),
        (Method::GET, "/auth/me"),
        (Method::GET, "/workspaces"),
        (Method::GET, "/api/settings/widget"),
    ] {
        let response = app.send(method, path, None, Some(&visitor.token)).await;
        assert_problem(response, StatusCode::FORBIDDEN, "wrong_token_type").await;
    }
    let (_, api_key) = app.api_key(&owner.workspace_token).await;
    for token in [&owner.workspace_token, &owner.user_token] {
        let response = app.get("/widget/v1/conversation", Some(token)).await;
        assert_problem(response, StatusCode::FORBIDDEN, "wrong_token_type").await;
        let response = app
            .visitor_says(
                &crate::helpers_widget::Visitor {
                    token: token.clone(),
                    visitor_id: String::new(),
                    session: Value::Null,
                },
                "hi",
            )
            .await;
        assert_problem(response, StatusCode::FORBIDDEN, "wrong_token_type").await;
    }
    for token in [
        api_key.as_str(),
        "garbage",
        &expired_visitor_token(&visitor.token),
    ] {
        let response = app.get("/widget/v1/conversation", Some(token)).await;
        assert_problem(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
    }
    let response = app.get("/widget/v1/conversation", None).await;
    assert_problem(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

/// The visitor's token with its expiry in the past, signed with the test secret.
fn expired_visitor_token(token: &str) -> String {
    use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
    let mut validation = Validation::new(Algorithm::HS256);
    validation.set_audience(&["supportdesk-widget"]);
    let mut claims: Value = jsonwebtoken::decode::<Value>(
        token,
        &DecodingKey::from_secret(JWT_SECRET.as_bytes()),
        &validation,
    )
    .unwrap()
    .claims;
    claims["exp"] = json!(claims["iat"].as_i64().unwrap() - 10);
    claims["iat"] = json!(claims["iat"].as_i64().unwrap() - 3700);
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(JWT_SECRET.as_bytes()),
    )
    .unwrap()
}

/// The workspace's contacts.
async fn contacts(app: &crate::helpers::TestApp, owner: &crate::helpers::Owner) -> i64 {
    let schema = format!("ws_{}", owner.workspace_id.simple());
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM \"{schema}\".contacts"
    )))
    .fetch_one(&app.db)
    .await
    .unwrap()
}

/// `GET /widget/v1/sites/{key}/origin-check` from a page of `origin`.
async fn origin_check(
    app: &crate::helpers::TestApp,
    key: &str,
    origin: Option<&str>,
) -> reqwest::Response {
    let mut request = app
        .client
        .get(app.url(&format!("/widget/v1/sites/{key}/origin-check")));
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn the_loader_learns_whether_its_page_may_chat_whatever_the_page() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("origin-check").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let cases = [
        (site_key.as_str(), Some(SITE), true),
        (site_key.as_str(), Some("https://elsewhere.example"), false),
        (site_key.as_str(), None, false),
        ("sk_unknown_key_that_names_nothing", Some(SITE), false),
        ("not a key", Some(SITE), false),
    ];
    for (key, origin, allowed) in cases {
        let response = origin_check(&app, key, origin).await;
        assert_eq!(response.status(), StatusCode::OK, "{key} {origin:?}");
        // Any page may read the answer, refused ones included.
        if origin.is_some() {
            assert_eq!(
                response.headers()["access-control-allow-origin"],
                "*",
                "{key} {origin:?}"
            );
        }
        let body: Value = response.json().await.unwrap();
        assert_eq!(body, json!({ "allowed": allowed }), "{key} {origin:?}");
    }
    // A preflight from any origin is answered too.
    let preflight = app
        .client
        .request(
            Method::OPTIONS,
            app.url(&format!("/widget/v1/sites/{site_key}/origin-check")),
        )
        .header("origin", "https://elsewhere.example")
        .header("access-control-request-method", "GET")
        .send()
        .await
        .unwrap();
    assert!(preflight.status().is_success());
    assert_eq!(preflight.headers()["access-control-allow-origin"], "*");

    // A deleted workspace's key allows nothing.
    app.delete_workspace(&owner).await;
    let body: Value = origin_check(&app, &site_key, Some(SITE))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(body, json!({ "allowed": false }));
}
