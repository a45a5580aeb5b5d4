//! Business hours (`GET|PATCH /api/settings/business-hours`, Owners) and what the widget
//! learns of them (`GET /widget/v1/availability`): always open until set, stored in one
//! order, bad documents refused whole with every problem named, and the widget told whether
//! the team is in, until when, and how long a first answer usually takes in business time.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use supportdesk_core::tenancy::TenantSchema;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use crate::helpers::{Owner, TestApp, assert_problem, spawn_app};
use crate::helpers_widget::SITE;

const PATH: &str = "/api/settings/business-hours";

fn around_the_clock() -> Value {
    let days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
    Value::Array(
        days.iter()
            .map(|day| json!({"day": day, "open": "00:00", "close": "24:00"}))
            .collect(),
    )
}

#[tokio::test]
async fn owners_set_business_hours_and_bad_ones_change_nothing() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hours").await;
    let token = &owner.workspace_token;

    let default = app.get_ok(PATH, token).await;
    assert_eq!(
        default,
        json!({"timeZone": "UTC", "weekly": around_the_clock(), "holidays": []})
    );

    let set = app
        .json_ok(
            Method::PATCH,
            PATH,
            &json!({
                "timeZone": "Europe/Berlin",
                "weekly": [
                    {"day": "wed", "open": "13:00", "close": "17:00"},
                    {"day": "mon", "open": "09:00", "close": "17:00"},
                    {"day": "wed", "open": "09:00", "close": "12:00"},
                    {"day": "fri", "open": "20:00", "close": "24:00"}
                ],
                "holidays": ["2026-12-25", "2026-12-24"]
            }),
            token,
            StatusCode::OK,
        )
        .await;
    let expected = json!({
        "timeZone": "Europe/Berlin",
        "weekly": [
            {"day": "mon", "open": "09:00", "close": "17:00"},
            {"day": "wed", "open": "09:00", "close": "12:00"},
            {"day": "wed", "open": "13:00", "close": "17:00"},
            {"day": "fri", "open": "20:00", "close": "24:00"}
        ],
        "holidays": ["2026-12-24", "2026-12-25"]
    });
    assert_eq!(set, expected);
    assert_eq!(app.get_ok(PATH, token).await, expected);

    // Only what is sent changes.
    let moved = app
        .json_ok(
            Method::PATCH,
            PATH,
            &json!({"timeZone": "America/New_York"}),
            token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(moved["weekly"], expected["weekly"]);
    assert_eq!(moved["timeZone"], "America/New_York");

    for (body, field) in [
        (json!({"timeZone": "Mars/Olympus"}), "timeZone"),
        (json!({"timeZone": ""}), "timeZone"),
        (
            json!({"weekly": [{"day": "mon", "open": "17:00", "close": "09:00"}]}),
            "weekly",
        ),
        (
            json!({"weekly": [{"day": "mon", "open": "9:00", "close": "17:00"}]}),
            "weekly",
        ),
        (
            json!({"weekly": [{"day": "mon", "open": "24:00", "close": "24:00"}]}),
            "weekly",
        ),
        (
            json!({"weekly": [
                {"day": "tue", "open": "09:00", "close": "13:00"},
                {"day": "tue", "open": "12:00", "close": "18:00"}
            ]}),
            "weekly",
        ),
        (
            json!({"holidays": ["2026-12-25", "2026-12-25"]}),
            "holidays",
        ),
        (json!({"holidays": ["Christmas"]}), "holidays"),
    ] {
        let response = app
            .send(Method::PATCH, PATH, Some(&body), Some(token))
            .await;
        let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
        assert!(problem["errors"][field].is_array(), "{body}: {problem}");
    }
    for body in [
        json!({"weekly": [{"day": "someday", "open": "09:00", "close": "17:00"}]}),
        json!({"weekly": [{"day": "mon", "open": "09:00"}]}),
        json!({"weekly": "9 to 5"}),
        json!({"hours": []}),
    ] {
        let response = app
            .send(Method::PATCH, PATH, Some(&body), Some(token))
            .await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{body}");
    }
    let malformed = app
        .client
        .patch(app.url(PATH))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body("{\"weekly\": [")
        .send()
        .await
        .unwrap();
    assert_problem(malformed, StatusCode::BAD_REQUEST, "malformed_json").await;
    assert_eq!(app.get_ok(PATH, token).await, moved, "nothing changed");

    // Agents neither read nor change them.
    let agent = app.join(&owner, "agent").await;
    let read = app.get(PATH, Some(&agent.token)).await;
    assert_eq!(read.status(), StatusCode::FORBIDDEN);
    let write = app
        .send(
            Method::PATCH,
            PATH,
            Some(&json!({"weekly": []})),
            Some(&agent.token),
        )
        .await;
    assert_eq!(write.status(), StatusCode::FORBIDDEN);
    let anonymous = app.get(PATH, None).await;
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(app.get_ok(PATH, token).await, moved);

    // The change is in the audit log, before and after.
    let audit = app.get_ok("/api/audit-log", token).await;
    assert!(
        audit.to_string().contains("businessHours"),
        "the audit log names the change: {audit}"
    );
}

#[tokio::test]
async fn the_widget_learns_whether_the_team_is_in_and_until_when() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hours-widget").await;
    let token = &owner.workspace_token;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;
    let availability = || async {
        let response = app
            .get("/widget/v1/availability", Some(&visitor.token))
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        response.json::<Value>().await.unwrap()
    };

    assert_eq!(
        availability().await,
        json!({"open": true, "changesAt": null, "typicalReplySeconds": null})
    );

    // Open around the clock, but today (UTC) is a holiday: closed until tomorrow's midnight.
    let today = time::OffsetDateTime::now_utc().date();
    let tomorrow = today.next_day().unwrap();
    app.json_ok(
        Method::PATCH,
        PATH,
        &json!({"weekly": around_the_clock(), "holidays": [today.to_string()]}),
        token,
        StatusCode::OK,
    )
    .await;
    let away = availability().await;
    assert_eq!(away["open"], false, "{away}");
    assert_eq!(away["changesAt"], format!("{tomorrow}T00:00:00Z"), "{away}");

    // No hours at all: closed, and nothing will change.
    app.json_ok(
        Method::PATCH,
        PATH,
        &json!({"weekly": [], "holidays": []}),
        token,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        availability().await,
        json!({"open": false, "changesAt": null, "typicalReplySeconds": null})
    );

    // Only visitors ask.
    let agent = app.get("/widget/v1/availability", Some(token)).await;
    assert!(
        matches!(
            agent.status(),
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN
        ),
        "{}",
        agent.status()
    );
    let anonymous = app.get("/widget/v1/availability", None).await;
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
}

/// First responses to customers who wrote at `asked`, answered after each of `waits`, as the
/// worker's reports fold them (`report_cycles`; what counts as a first response is
/// `workers/tests/worker/reports.rs`'s), and one to a conversation an agent started, which
/// does not count.
async fn answered(app: &TestApp, owner: &Owner, asked: OffsetDateTime, waits: &[Duration]) {
    let schema = TenantSchema::for_workspace(owner.workspace_id);
    let agent: Uuid =
        sqlx::query_scalar(schema.sql("SELECT id FROM {schema}.agent_profiles LIMIT 1"))
            .fetch_one(&app.db)
            .await
            .unwrap();
    let manual = [("manual", Duration::seconds(5))];
    let chats = waits.iter().map(|wait| ("chat", *wait));
    for (channel, wait) in chats.chain(manual) {
        let seconds = wait.whole_seconds() as i32;
        sqlx::query(schema.sql(
            "INSERT INTO {schema}.report_cycles
                    (conversation_id, cycle, channel, started_at, first_incoming_at,
                     first_response_at, responder_id, response_seconds,
                     response_business_seconds)
             VALUES (gen_random_uuid(), 1, $1, $2, $2, $3, $4, $5, $5)",
        ))
        .bind(channel)
        .bind(asked)
        .bind(asked + wait)
        .bind(agent)
        .bind(seconds)
        .execute(&app.db)
        .await
        .unwrap();
    }
}

#[tokio::test]
async fn the_widget_tells_the_usual_first_reply_in_business_time() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hours-reply").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;
    // A Friday at least three days ago, 16:30 UTC: answered on the Monday after, 09:00 plus
    // 10 to 50 minutes.
    let mut friday = OffsetDateTime::now_utc().date() - Duration::days(3);
    while friday.weekday() != time::Weekday::Friday {
        friday = friday.previous_day().unwrap();
    }
    let asked = friday.with_hms(16, 30, 0).unwrap().assume_utc();
    let monday = asked + Duration::days(2) + Duration::hours(16) + Duration::minutes(30);
    let waits: Vec<Duration> = [10, 20, 30, 40, 50]
        .into_iter()
        .map(|k| (monday - asked) + Duration::minutes(k))
        .collect();
    answered(&app, &owner, asked, &waits).await;
    // Nine to five on weekdays: the weekend does not count, 30 minutes on Friday do.
    let weekdays: Vec<Value> = ["mon", "tue", "wed", "thu", "fri"]
        .iter()
        .map(|day| json!({"day": day, "open": "09:00", "close": "17:00"}))
        .collect();
    app.json_ok(
        Method::PATCH,
        PATH,
        &json!({"timeZone": "UTC", "weekly": weekdays}),
        &owner.workspace_token,
        StatusCode::OK,
    )
    .await;
    let response = app
        .get("/widget/v1/availability", Some(&visitor.token))
        .await;
    let told: Value = response.json().await.unwrap();
    assert_eq!(told["typicalReplySeconds"], 60 * 60, "{told}");

    // Around the clock, the weekend counts: the hours changing measures again.
    app.json_ok(
        Method::PATCH,
        PATH,
        &json!({"weekly": around_the_clock()}),
        &owner.workspace_token,
        StatusCode::OK,
    )
    .await;
    let response = app
        .get("/widget/v1/availability", Some(&visitor.token))
        .await;
    let told: Value = response.json().await.unwrap();
    let expected = (waits[2]).whole_seconds();
    assert_eq!(told["typicalReplySeconds"], expected, "{told}");
}
