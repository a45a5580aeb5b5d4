//! Workspaces on a real Citus cluster (a coordinator and two workers of the test's own, with
//! schema-based sharding): every workspace schema is distributed whole to one worker, every
//! statement the API runs for a workspace is routed to that worker alone (the cluster's
//! databases refuse any other, see `tests/support/src/citus.rs`), workspaces move between
//! workers while they serve, and a stopped worker makes only its own workspaces unavailable.
//!
//! The rest of the suite runs on such a cluster too with `TEST_CLUSTER=citus` (`.ci/test`
//! does, for the tenancy, conversation, hub, widget and event-log tests).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_core::tenancy::citus::{self, NodeAddress};
use supportdesk_core::tenancy::deletion::drop_workspace;
use supportdesk_core::tenancy::migrations::{Selection, TenantMigrations, migrate_all_with};
use supportdesk_core::tenancy::spares::make_spare;
use supportdesk_test_support::citus::CitusCluster;
use supportdesk_test_support::database::TestDatabase;

use crate::helpers::{Owner, TestApp, assert_problem, spawn_app_on};
use crate::helpers_conversations::id;
use crate::process::supportdesk;

async fn cluster() -> Arc<CitusCluster> {
    tokio::task::spawn_blocking(|| Arc::new(CitusCluster::start(2)))
        .await
        .expect("start a Citus cluster")
}

async fn app_on(cluster: &CitusCluster) -> TestApp {
    spawn_app_on(TestDatabase::migrated_on_citus(cluster).await, &[]).await
}

impl TestApp {
    /// The worker holding `owner`'s workspace, as Citus's metadata says.
    async fn node_of(&self, owner: &Owner) -> NodeAddress {
        let schema = TenantSchema::for_workspace(owner.workspace_id);
        citus::placements(&self.db)
            .await
            .expect("placements")
            .remove(schema.name())
            .expect("the workspace's schema is distributed")
    }

    /// Moves `owner`'s workspace to `to` unless it is there.
    async fn place(&self, owner: &Owner, to: &NodeAddress) {
        if &self.node_of(owner).await != to {
            citus::move_schema(
                &self.db,
                &TenantSchema::for_workspace(owner.workspace_id),
                to,
            )
            .await
            .expect("move");
        }
    }
}

fn worker(cluster: &CitusCluster, i: usize) -> NodeAddress {
    NodeAddress {
        host: "127.0.0.1".into(),
        port: cluster.worker_ports()[i],
    }
}

/// The `supportdesk` binary's output as JSON, asserting it succeeded.
fn run_json(command: &mut std::process::Command) -> Value {
    let output = command.output().expect("run supportdesk");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("json output")
}

#[tokio::test]
async fn workspaces_are_distributed_schemas_that_provision_migrate_and_drop_on_the_cluster() {
    let cluster = cluster().await;
    let app = app_on(&cluster).await;

    // A spare made ahead of time is distributed like any workspace schema, and claiming it
    // (a rename) keeps it so.
    let spare = make_spare(&app.db, &TenantMigrations::embedded())
        .await
        .expect("make a spare schema on the cluster");
    let placements = citus::placements(&app.db).await.unwrap();
    assert!(placements.contains_key(spare.name()), "{placements:?}");
    let alpha = app.owner_with_workspace("alpha").await;
    let placements = citus::placements(&app.db).await.unwrap();
    assert!(!placements.contains_key(spare.name()));
    assert!(placements.contains_key(TenantSchema::for_workspace(alpha.workspace_id).name()));
    assert_eq!(app.count("spare_schemas").await, 0);

    // Without a spare, the API makes the schema itself; new workspaces land on both workers.
    let mut owners = vec![alpha];
    for slug in ["bravo", "charlie", "delta"] {
        owners.push(app.owner_with_workspace(slug).await);
    }
    let mut nodes = BTreeSet::new();
    for owner in &owners {
        nodes.insert(app.node_of(owner).await);
    }
    assert_eq!(
        nodes,
        BTreeSet::from([worker(&cluster, 0), worker(&cluster, 1)]),
        "workspaces are spread over the workers"
    );

    // The tenant statements of a working day, each routed to its workspace's worker (the
    // cluster refuses anything else).
    for owner in &owners {
        let conversation = app
            .start_conversation(&owner.workspace_token, "carla@example.com", "Where is it?")
            .await;
        app.json_ok(
            Method::POST,
            &format!("/api/conversations/{}/messages", id(&conversation)),
            &json!({"body": "On its way"}),
            &owner.workspace_token,
            StatusCode::CREATED,
        )
        .await;
        app.get_ok("/api/conversations", &owner.workspace_token)
            .await;
        app.get_ok(
            &format!(
                "/api/contacts/{}",
                conversation["contact"]["id"].as_str().unwrap()
            ),
            &owner.workspace_token,
        )
        .await;
        app.get_ok("/api/events?after=0", &owner.workspace_token)
            .await;
    }

    // `tenants list` shows each workspace's node, from the coordinator's metadata.
    let listed = run_json(supportdesk(app.database_url()).args(["tenants", "list", "--json"]));
    let placements = citus::placements(&app.db).await.unwrap();
    for row in listed.as_array().unwrap() {
        let schema = TenantSchema::for_workspace(row["id"].as_str().unwrap().parse().unwrap());
        assert_eq!(
            row["node"],
            json!(placements[schema.name()].to_string()),
            "{row}"
        );
    }

    // A later tenant migration applies to distributed schemas (Citus plans its DDL).
    let later = TenantMigrations::embedded()
        .with(
            "V900__contact_nicknames",
            "ALTER TABLE contacts ADD COLUMN nickname text;
             CREATE INDEX contacts_nickname ON contacts (nickname);",
        )
        .unwrap();
    let report = migrate_all_with(&app.db, &Selection::default(), 2, Arc::new(|_| {}), &later)
        .await
        .unwrap();
    assert_eq!(report.failed.len(), 0, "{:?}", report.failed);
    assert_eq!(report.migrated, 4);

    // A statement joining a workspace's tables with the control plane is refused by the
    // cluster these tests run on: the check above means something.
    let a = TenantSchema::for_workspace(owners[0].workspace_id).quoted();
    let joined: Result<i64, _> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM {a}.agent_profiles p JOIN public.users u ON u.id = p.user_id"
    )))
    .fetch_one(&app.db)
    .await;
    assert!(joined.is_err(), "a join with the control plane ran");

    // A workspace made before schema-based sharding was turned on stays on the coordinator
    // until `tenants distribute` takes it, rows and all, to a worker.
    let database: String = sqlx::query_scalar("SELECT current_database()")
        .fetch_one(&app.db)
        .await
        .unwrap();
    let set_sharding = |value: &'static str| {
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            r#"ALTER DATABASE "{database}" SET citus.enable_schema_based_sharding = {value}"#
        )))
    };
    set_sharding("off").execute(&app.db).await.unwrap();
    sqlx::query(
        "INSERT INTO public.users (id, email, full_name, password_hash, email_verified)
         VALUES (gen_random_uuid(), 'legacy@example.com', 'Lee', 'x', true)",
    )
    .execute(&app.db)
    .await
    .unwrap();
    let legacy = run_json(supportdesk(app.database_url()).args([
        "tenants",
        "create",
        "--name",
        "Legacy",
        "--slug",
        "legacy",
        "--owner-email",
        "legacy@example.com",
        "--json",
    ]));
    let legacy = TenantSchema::for_workspace(legacy["id"].as_str().unwrap().parse().unwrap());
    assert!(
        !citus::placements(&app.db)
            .await
            .unwrap()
            .contains_key(legacy.name())
    );
    set_sharding("on").execute(&app.db).await.unwrap();
    let output = supportdesk(app.database_url())
        .args(["tenants", "distribute"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        citus::placements(&app.db)
            .await
            .unwrap()
            .contains_key(legacy.name())
    );
    let members: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM {}.agent_profiles",
        legacy.quoted()
    )))
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert_eq!(members, 1, "the workspace's rows went with it");

    // Deleting a workspace drops its distributed schema.
    let gone = owners.pop().unwrap();
    app.delete_workspace(&gone).await;
    assert!(drop_workspace(&app.db, gone.workspace_id).await.unwrap());
    let schema = TenantSchema::for_workspace(gone.workspace_id);
    assert!(
        !citus::placements(&app.db)
            .await
            .unwrap()
            .contains_key(schema.name())
    );
    let left: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1)",
    )
    .bind(schema.name())
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert!(!left);
}

#[tokio::test]
async fn a_workspace_moves_between_workers_while_it_serves_and_rebalancing_spreads_them() {
    let cluster = cluster().await;
    let app = Arc::new(app_on(&cluster).await);
    let owner = Arc::new(app.owner_with_workspace("moving").await);
    let from = app.node_of(&owner).await;
    let to = if from == worker(&cluster, 0) {
        worker(&cluster, 1)
    } else {
        worker(&cluster, 0)
    };
    // Something to copy, so the move takes a while.
    for n in 0..20 {
        app.start_conversation(
            &owner.workspace_token,
            &format!("before{n}@example.com"),
            "Before",
        )
        .await;
    }

    // Two writers and a reader, for as long as the move takes and a little after.
    let moving = Arc::new(AtomicBool::new(true));
    let mut traffic = Vec::new();
    for writer in 0..2 {
        let (app, owner, moving) = (app.clone(), owner.clone(), moving.clone());
        traffic.push(tokio::spawn(async move {
            let mut written = Vec::new();
            let mut failures = Vec::new();
            let mut n = 0;
            while moving.load(Ordering::Relaxed) {
                let response = app
                    .send(
                        Method::POST,
                        "/api/conversations",
                        Some(&json!({
                            "contact": {"email": format!("w{writer}-{n}@example.com")},
                            "subject": "During", "body": format!("w{writer}-{n}"),
                        })),
                        Some(&owner.workspace_token),
                    )
                    .await;
                let status = response.status();
                let body: Value = response.json().await.unwrap_or(Value::Null);
                if status == StatusCode::CREATED {
                    written.push(id(&body));
                } else {
                    failures.push(format!("{status}: {body}"));
                }
                n += 1;
            }
            (written, failures)
        }));
    }
    let reader = {
        let (app, owner, moving) = (app.clone(), owner.clone(), moving.clone());
        tokio::spawn(async move {
            let mut failures = Vec::new();
            let mut reads = 0;
            while moving.load(Ordering::Relaxed) {
                let response = app
                    .get("/api/conversations?limit=5", Some(&owner.workspace_token))
                    .await;
                if response.status() != StatusCode::OK {
                    failures.push(response.status().to_string());
                }
                reads += 1;
            }
            (reads, failures)
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let slug = "moving".to_owned();
    let target = to.to_string();
    let url = app.database_url().to_owned();
    let moved = tokio::task::spawn_blocking(move || {
        supportdesk(&url)
            .args(["tenants", "move", &slug, "--to", &target])
            .output()
            .expect("run tenants move")
    })
    .await
    .unwrap();
    assert!(
        moved.status.success(),
        "{}",
        String::from_utf8_lossy(&moved.stderr)
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    moving.store(false, Ordering::Relaxed);
    let mut written = Vec::new();
    for writer in traffic {
        let (ids, failures) = writer.await.unwrap();
        assert_eq!(
            failures,
            Vec::<String>::new(),
            "writes failed during the move"
        );
        written.extend(ids);
    }
    let (reads, failures) = reader.await.unwrap();
    assert_eq!(
        failures,
        Vec::<String>::new(),
        "reads failed during the move"
    );
    assert!(reads > 0 && !written.is_empty());
    assert_eq!(app.node_of(&owner).await, to, "the workspace moved");

    // Nothing lost, nothing twice, and the log still numbered 1, 2, 3... in commit order.
    let mut listed = BTreeSet::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/api/conversations?limit=100&cursor={c}"),
            None => "/api/conversations?limit=100".to_owned(),
        };
        let page = app.get_ok(&path, &owner.workspace_token).await;
        for conversation in page["conversations"].as_array().unwrap() {
            assert!(listed.insert(id(conversation)), "listed twice");
        }
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(listed.len(), 20 + written.len());
    assert!(written.iter().all(|w| listed.contains(w)));
    let events = app.events_after(0, &owner.workspace_token).await;
    let seqs: Vec<i64> = events.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert_eq!(seqs, (1..=seqs.len() as i64).collect::<Vec<_>>());
    let created: BTreeSet<String> = events
        .iter()
        .filter(|e| e["type"] == "conversation.created")
        .map(|e| e["data"]["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(created, listed, "one creation event per conversation");

    // Put three more workspaces on one worker; the rebalancer spreads them again.
    let mut owners = vec![owner.clone()];
    for slug in ["echo", "foxtrot", "golf"] {
        owners.push(Arc::new(app.owner_with_workspace(slug).await));
    }
    for owner in &owners {
        app.place(owner, &to).await;
    }
    let output = supportdesk(app.database_url())
        .args(["tenants", "rebalance"])
        .output()
        .expect("run tenants rebalance");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut per_node: HashMap<NodeAddress, usize> = HashMap::new();
    for owner in &owners {
        *per_node.entry(app.node_of(owner).await).or_default() += 1;
    }
    assert_eq!(per_node.get(&worker(&cluster, 0)), Some(&2), "{per_node:?}");
    assert_eq!(per_node.get(&worker(&cluster, 1)), Some(&2), "{per_node:?}");
    for owner in &owners {
        app.get_ok("/api/conversations", &owner.workspace_token)
            .await;
    }
}

#[tokio::test]
async fn a_stopped_worker_makes_only_its_own_workspaces_unavailable_until_it_returns() {
    let cluster = cluster().await;
    let app = app_on(&cluster).await;
    let down = app.owner_with_workspace("downstairs").await;
    let up = app.owner_with_workspace("upstairs").await;
    app.place(&down, &worker(&cluster, 0)).await;
    app.place(&up, &worker(&cluster, 1)).await;
    app.start_conversation(&down.workspace_token, "a@example.com", "Hello")
        .await;

    // Node 1 is the first worker.
    cluster.stop_node(1);
    let started = Instant::now();
    let response = app
        .get("/api/conversations", Some(&down.workspace_token))
        .await;
    let problem = assert_problem(
        response,
        StatusCode::SERVICE_UNAVAILABLE,
        "tenant_unavailable",
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "answered after {:?}",
        started.elapsed()
    );
    assert!(
        !problem.to_string().contains("127.0.0.1"),
        "the problem names no node: {problem}"
    );
    let write = app
        .send(
            Method::POST,
            "/api/conversations",
            Some(&json!({"contact": {"email": "b@example.com"}, "subject": "S", "body": "B"})),
            Some(&down.workspace_token),
        )
        .await;
    assert_problem(write, StatusCode::SERVICE_UNAVAILABLE, "tenant_unavailable").await;

    // The other worker's workspace is served as before, reads and writes: nothing it runs
    // needs the stopped node (a statement Citus runs in steps and ships to every node would).
    let conversation = app
        .start_conversation(&up.workspace_token, "c@example.com", "Still here")
        .await;
    let path = format!("/api/conversations/{}", id(&conversation));
    for (route, body) in [("messages", "A reply"), ("notes", "A note")] {
        app.json_ok(
            Method::POST,
            &format!("{path}/{route}"),
            &json!({ "body": body }),
            &up.workspace_token,
            StatusCode::CREATED,
        )
        .await;
    }
    app.json_ok(
        Method::POST,
        &format!("{path}/status"),
        &json!({"status": "resolved"}),
        &up.workspace_token,
        StatusCode::OK,
    )
    .await;
    let ticket = app
        .open_ticket(&up.workspace_token, "t@example.com", json!({}))
        .await;
    let ticket_path = format!("/api/tickets/{}", id(&ticket));
    app.json_ok(
        Method::PATCH,
        &ticket_path,
        &json!({"status": "resolved"}),
        &up.workspace_token,
        StatusCode::OK,
    )
    .await;
    app.json_ok(
        Method::POST,
        &format!("{ticket_path}/comments"),
        &json!({"body": "Done"}),
        &up.workspace_token,
        StatusCode::CREATED,
    )
    .await;
    app.get_ok("/api/conversations", &up.workspace_token).await;
    app.get_ok("/api/events?after=0", &up.workspace_token).await;
    // `tenants list` still says where everything is: it reads only the coordinator.
    let listed = run_json(supportdesk(app.database_url()).args(["tenants", "list", "--json"]));
    assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");

    cluster.start_node(1);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let response = app
            .get("/api/conversations", Some(&down.workspace_token))
            .await;
        if response.status() == StatusCode::OK {
            let page: Value = response.json().await.unwrap();
            assert_eq!(page["conversations"].as_array().unwrap().len(), 1);
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the workspace did not come back: {}",
            response.status()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    app.start_conversation(&down.workspace_token, "d@example.com", "Back")
        .await;
}
