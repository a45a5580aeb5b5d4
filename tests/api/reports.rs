//! `GET /api/reports/*` as callers meet them before anything is counted: the range they get
//! by default, every period present, refusals of bad ranges and filters that change nothing,
//! Agents held to their own figures, and the CSV exports. What the figures count is
//! `workers/tests/worker/reports.rs`, where the worker folds the event log.

use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_DISPOSITION, CONTENT_TYPE};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{assert_problem, spawn_app};

const REPORTS: [&str; 6] = [
    "volume",
    "first-response-time",
    "resolution-time",
    "csat",
    "heatmap",
    "agents",
];

#[tokio::test]
async fn every_report_answers_for_an_empty_workspace_with_every_period() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("reports-empty").await;
    let token = &owner.workspace_token;

    // The default: the last 30 days, today included, by day, in the workspace's zone (UTC
    // until business hours say otherwise).
    let volume = app.get_ok("/api/reports/volume", token).await;
    let today = time::OffsetDateTime::now_utc().date();
    assert_eq!(volume["range"]["to"], today.to_string(), "{volume}");
    assert_eq!(
        volume["range"]["from"],
        (today - time::Duration::days(29)).to_string()
    );
    assert_eq!(volume["range"]["groupBy"], "day");
    assert_eq!(volume["range"]["businessHours"], false);
    assert_eq!(volume["range"]["timeZone"], "UTC");
    assert_eq!(volume["series"].as_array().unwrap().len(), 30);
    assert_eq!(
        volume["total"],
        json!({"created": 0, "resolved": 0, "reopened": 0})
    );

    let query = "?from=2026-11-04&to=2026-11-20&groupBy=week&businessHours=true";
    let times = app
        .get_ok(&format!("/api/reports/first-response-time{query}"), token)
        .await;
    let periods: Vec<&str> = times["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["period"].as_str().unwrap())
        .collect();
    assert_eq!(periods, ["2026-11-02", "2026-11-09", "2026-11-16"]);
    assert_eq!(
        times["series"][0],
        json!({"period": "2026-11-02", "count": 0, "median": null, "p90": null})
    );
    assert_eq!(times["range"]["businessHours"], true);

    let csat = app.get_ok("/api/reports/csat?groupBy=month", token).await;
    assert_eq!(
        csat["distribution"],
        json!([
            {"rating": 1, "count": 0}, {"rating": 2, "count": 0}, {"rating": 3, "count": 0},
            {"rating": 4, "count": 0}, {"rating": 5, "count": 0}
        ])
    );
    assert_eq!(
        csat["total"],
        json!({"responses": 0, "satisfied": 0, "score": null})
    );

    let heatmap = app.get_ok("/api/reports/heatmap", token).await;
    let cells = heatmap["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 168);
    assert_eq!(cells[0], json!({"weekday": 1, "hour": 0, "messages": 0}));
    assert_eq!(cells[167], json!({"weekday": 7, "hour": 23, "messages": 0}));

    let agents = app.get_ok("/api/reports/agents", token).await;
    assert_eq!(agents["agents"], json!([]));

    // Days are the business hours' days.
    app.json_ok(
        reqwest::Method::PATCH,
        "/api/settings/business-hours",
        &json!({"timeZone": "Pacific/Kiritimati"}),
        token,
        StatusCode::OK,
    )
    .await;
    let volume = app.get_ok("/api/reports/volume", token).await;
    assert_eq!(volume["range"]["timeZone"], "Pacific/Kiritimati");
    let there = time::OffsetDateTime::now_utc()
        .to_offset(time::UtcOffset::from_hms(14, 0, 0).unwrap())
        .date();
    assert_eq!(volume["range"]["to"], there.to_string(), "{volume}");
}

#[tokio::test]
async fn bad_ranges_and_filters_are_refused_with_the_field_named() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("reports-bad").await;
    let token = Some(owner.workspace_token.as_str());

    for (query, field) in [
        ("from=2026-02-02&to=2026-02-01", "from"),
        ("from=2026-13-01&to=2026-12-31", "from"),
        ("from=2026-01-01&to=yesterday", "to"),
        ("from=2024-01-01&to=2025-01-01", "from"),
    ] {
        let response = app
            .get(&format!("/api/reports/volume?{query}"), token)
            .await;
        let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
        assert!(problem["errors"][field].is_array(), "{query}: {problem}");
    }
    // A leap year's 366 days are one range.
    let year = app
        .get(
            "/api/reports/volume?from=2024-01-01&to=2024-12-31&groupBy=month",
            token,
        )
        .await;
    assert_eq!(year.status(), StatusCode::OK);

    for query in [
        "groupBy=hour",
        "channel=fax",
        "businessHours=maybe",
        "agentId=not-a-uuid",
        "unknown=1",
    ] {
        let response = app.get(&format!("/api/reports/csat?{query}"), token).await;
        assert_problem(response, StatusCode::BAD_REQUEST, "invalid_query").await;
    }

    for (query, field) in [
        (format!("agentId={}", Uuid::new_v4()), "agentId"),
        (format!("labelId={}", Uuid::new_v4()), "labelId"),
    ] {
        let response = app
            .get(&format!("/api/reports/heatmap?{query}"), token)
            .await;
        let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
        assert!(problem["errors"][field].is_array(), "{problem}");
    }

    let anonymous = app.get("/api/reports/volume", None).await;
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    let user_token = app
        .get("/api/reports/volume", Some(owner.user_token.as_str()))
        .await;
    assert_eq!(user_token.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn agents_see_their_own_figures_and_owners_anyone_s() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("reports-agents").await;
    let maya = app.member(&owner, "agent").await;
    let bo = app.member(&owner, "agent").await;
    let token = Some(maya.workspace_token.as_str());

    for report in REPORTS.iter().filter(|r| **r != "heatmap") {
        let own = app.get(&format!("/api/reports/{report}"), token).await;
        assert_eq!(own.status(), StatusCode::OK, "{report}");
        let mine = app
            .get(
                &format!("/api/reports/{report}?agentId={}", maya.agent_id),
                token,
            )
            .await;
        assert_eq!(mine.status(), StatusCode::OK, "{report}");
        let theirs = app
            .get(
                &format!("/api/reports/{report}?agentId={}", bo.agent_id),
                token,
            )
            .await;
        assert_problem(theirs, StatusCode::FORBIDDEN, "own_reports_only").await;
    }
    // An agent's row is theirs alone, with nothing counted yet.
    let agents = app
        .get_ok("/api/reports/agents", &maya.workspace_token)
        .await;
    assert_eq!(agents["agents"].as_array().unwrap().len(), 1, "{agents}");
    assert_eq!(agents["agents"][0]["agentId"], maya.agent_id.to_string());
    assert_eq!(agents["agents"][0]["firstResponses"], 0);
    assert_eq!(agents["agents"][0]["csatScore"], Value::Null);

    let heatmap = app.get("/api/reports/heatmap", token).await;
    assert_problem(heatmap, StatusCode::FORBIDDEN, "owner_only").await;

    let owner_view = app
        .get(
            &format!("/api/reports/resolution-time?agentId={}", bo.agent_id),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(owner_view.status(), StatusCode::OK);
}

#[tokio::test]
async fn each_report_exports_as_csv() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("reports-csv").await;
    let headers = [
        // March 2026 meets six ISO weeks; the first is keyed by its Monday, 23 February.
        ("volume", "period,created,resolved,reopened", 6),
        (
            "first-response-time",
            "period,count,median_seconds,p90_seconds",
            6,
        ),
        (
            "resolution-time",
            "period,count,median_seconds,p90_seconds",
            6,
        ),
        (
            "csat",
            "period,responses,satisfied,score,rating_1,rating_2,rating_3,rating_4,rating_5",
            6,
        ),
        ("heatmap", "weekday,hour,messages", 168),
        (
            "agents",
            "agent_id,display_name,first_responses,first_response_median_seconds,resolutions,resolution_median_seconds,ratings,csat_score",
            0,
        ),
    ];
    assert_eq!(headers.len(), REPORTS.len());
    for (report, header, rows) in headers {
        let response = app
            .client
            .get(app.url(&format!(
                "/api/reports/{report}?from=2026-03-01&to=2026-03-31&groupBy=week"
            )))
            .bearer_auth(&owner.workspace_token)
            .header(ACCEPT, "text/csv")
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), StatusCode::OK, "{report}");
        let header_of = |name| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned()
        };
        assert!(header_of(CONTENT_TYPE).starts_with("text/csv"), "{report}");
        assert_eq!(
            header_of(CONTENT_DISPOSITION),
            format!("attachment; filename=\"{report}-2026-03-01-2026-03-31.csv\"")
        );
        let body = response.text().await.expect("body");
        let lines: Vec<&str> = body.lines().collect();
        assert_eq!(lines[0], header, "{report}");
        assert_eq!(lines.len() - 1, rows, "{report}: {body}");
        if header.starts_with("period,") {
            assert!(lines[1].starts_with("2026-02-23,0,"), "{report}: {body}");
        }
    }
}
