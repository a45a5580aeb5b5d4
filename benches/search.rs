//! Finding things at size: one workspace with `SEARCH_BENCH_CONVERSATIONS` (100 000)
//! conversations of `SEARCH_BENCH_MESSAGES` (10) messages each (1 000 000 messages of 6 to 30
//! words drawn from a word list, common words far more often than rare ones, as in real text),
//! 20 000 contacts and 10 000 tickets, the agent's read marks on all but one conversation in
//! twenty, beside `SEARCH_BENCH_WORKSPACES` (2 000) small
//! workspaces. Against the release API, `SEARCH_BENCH_REQUESTS` (200) requests each, one
//! client:
//!
//! 1. `GET /api/search` for one word (common, middling, rare), three words and a phrase; p50
//!    and p99 (budget: p99 under 100 ms).
//! 2. Filtered inbox pages (`GET /api/conversations?...`): status and priority, a label, a
//!    channel, mine and open, unread; p50 and p99 (budget: p99 under 30 ms).
//!    Baseline for both, same run: `GET /api/conversations/{id}` (one indexed row through
//!    the same API).
//! 3. What indexing costs in space: the `search` columns and their GIN indexes, beside the
//!    tables.
//! 4. What it costs to write: replies per second through `POST .../messages` by
//!    `SEARCH_BENCH_WRITERS` (8) writers for `SEARCH_BENCH_SECONDS` (20) s, in a workspace
//!    with the search columns and in one without them (dropped), alternated twice (budget: at
//!    most 15 % lower with indexing).
//! 5. The plans (`EXPLAIN (ANALYZE, BUFFERS)`) of the slowest search and inbox page.
//!
//! `cargo bench --bench search` (or `BENCH_ONLY=search bash .ci/bench`).

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use common::{
    bare_workspaces, bench_env, insert_users, jwt_keys, knob, ms, percentile, post_json, serve_api,
    workspace_via_api,
};
use serde_json::json;
use sqlx::{PgPool, QueryBuilder};
use supportdesk::conversations::record::{self as conversations, ListFilter, Reader};
use supportdesk::inbox::assignee::AssigneeFilter;
use supportdesk::pagination::Page;
use supportdesk::search::record::push_search_query;
use supportdesk::search::request::{Filters, Search, kinds};
use supportdesk::tenancy::context::PLANNED_FOR_VALUES;
use supportdesk_core::config::Settings;
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_test_support::database::TestDatabase;
use uuid::Uuid;

/// The words messages are made of, most common first: a message draws word `i` with a
/// probability falling with `i` (the index is `n * r^2` for a uniform `r`), so the first words
/// are in most messages and the last ones in a few hundred.
const WORDS: &str = "the to and a of you i it is for your we order on that this with be have \
    can please thanks thank my not will are help was our just at as but if account get out do \
    so an all me what when there any from would like know time one up need about back by or \
    hello hi issue problem still working again today now new email payment card invoice \
    delivery shipping address package tracking number days week team support reply soon sorry \
    update status check sent received refund return item product price charge billing plan \
    subscription cancel change password login reset link app phone website page error message \
    screen button settings browser download install version mobile desktop customer service \
    manager agent ticket request question answer information details confirm confirmed \
    confirmation receipt discount coupon code offer sale size color colour quality broken \
    damaged missing wrong late delayed lost replacement exchange warranty repair kettle toaster \
    blender heater lamp chair table sofa mattress pillow blanket towel mug bottle charger cable \
    adapter battery screenshot attachment photo file document pdf spreadsheet report export \
    import sync calendar meeting schedule appointment booking reservation flight hotel ticketing \
    voucher gift loyalty points membership renewal upgrade downgrade trial expired suspended \
    blocked verified unverified security fraud dispute chargeback bank transfer paypal stripe \
    wire deposit withdrawal balance statement tax vat receipt quote estimate contract agreement \
    signature onboarding migration integration webhook api token key permission role admin \
    owner workspace inbox label filter search view notification alert reminder digest \
    newsletter unsubscribe spam privacy gdpr consent cookie tracking analytics dashboard chart \
    zeppelin quokka marzipan";

/// Searches, each with what it stands for: (label, `q`).
const SEARCHES: [(&str, &str); 6] = [
    ("one common word", "order"),
    ("one middling word", "kettle"),
    ("one rare word", "quokka"),
    ("three words", "refund damaged kettle"),
    ("a phrase", "\"please check\""),
    ("a word and an exclusion", "invoice -paypal"),
];

fn main() -> anyhow::Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run())
}

/// The big workspace, seeded with SQL: contacts, conversations, messages, tickets, labels.
async fn seed(
    pool: &PgPool,
    schema: &TenantSchema,
    agent: Uuid,
    conversations: usize,
    per_conversation: usize,
    step: &dyn Fn(&str),
) -> anyhow::Result<(Uuid, Uuid)> {
    let words: Vec<&str> = WORDS.split_whitespace().collect();
    sqlx::query(schema.sql(
        "INSERT INTO {schema}.contacts (id, email, name)
         SELECT md5('contact' || n)::uuid, 'contact' || n || '@bench.test',
                'Contact ' || n
           FROM generate_series(1, 20000) n",
    ))
    .execute(pool)
    .await?;
    // Statuses 20 % open, 10 % pending, 70 % resolved; priorities mostly none; every third
    // by email, chat or by hand; a quarter unassigned; one every five minutes back a year.
    let batch = 10_000;
    for start in (0..conversations).step_by(batch) {
        let end = (start + batch).min(conversations);
        sqlx::query(schema.sql(
            "INSERT INTO {schema}.conversations
                 (contact_id, subject, status, priority, assignee_id, channel, created_at,
                  last_message_at, updated_at, resolved_at)
             SELECT md5('contact' || (1 + n % 20000))::uuid,
                    (SELECT string_agg(($1::text[])[1 + floor(power(random(), 2)
                                                  * cardinality($1::text[]))::int], ' ')
                       FROM generate_series(1, 3 + n % 4) w),
                    CASE WHEN n % 10 < 2 THEN 'open' WHEN n % 10 = 2 THEN 'pending'
                         ELSE 'resolved' END,
                    CASE WHEN n % 17 = 0 THEN 'urgent' WHEN n % 7 = 0 THEN 'high' END,
                    CASE WHEN n % 4 = 0 THEN NULL ELSE $2 END,
                    (ARRAY['chat', 'email', 'manual'])[1 + n % 3],
                    now() - n * interval '5 minutes',
                    now() - n * interval '5 minutes' + $3 * interval '7 minutes',
                    now() - n * interval '5 minutes' + $3 * interval '7 minutes',
                    CASE WHEN n % 10 > 2
                         THEN now() - n * interval '5 minutes' + $3 * interval '7 minutes' END
               FROM generate_series($4::int, $5::int) n",
        ))
        .bind(&words)
        .bind(agent)
        .bind(i32::try_from(per_conversation)?)
        .bind(i32::try_from(start)?)
        .bind(i32::try_from(end - 1)?)
        .execute(pool)
        .await?;
    }
    let (first, last, count): (i64, i64, i64) = sqlx::query_as(
        schema.sql("SELECT min(number), max(number), count(*) FROM {schema}.conversations"),
    )
    .fetch_one(pool)
    .await?;
    step(&format!(
        "{count} conversations, numbered {first} to {last}"
    ));
    // Messages: alternately incoming and outgoing, every tenth a note, seven minutes apart.
    for start in (0..conversations).step_by(batch) {
        let end = (start + batch).min(conversations);
        sqlx::query(schema.sql(
            "INSERT INTO {schema}.messages (conversation_id, kind, body, author_agent_id,
                                            created_at)
             SELECT c.id, k.kind,
                    (SELECT string_agg(($1::text[])[1 + floor(power(random(), 2)
                                                  * cardinality($1::text[]))::int], ' ')
                       FROM generate_series(1, 6 + (c.number + m) % 25) w),
                    CASE WHEN k.kind = 'incoming' THEN NULL ELSE $2 END,
                    c.created_at + m * interval '7 minutes'
               FROM {schema}.conversations c
              CROSS JOIN generate_series(1, $3) m
              CROSS JOIN LATERAL (SELECT CASE WHEN m % 10 = 0 THEN 'note'
                                              WHEN m % 2 = 1 THEN 'incoming'
                                              ELSE 'outgoing' END AS kind) k
              WHERE c.number >= $4 AND c.number < $5",
        ))
        .bind(&words)
        .bind(agent)
        .bind(i32::try_from(per_conversation)?)
        .bind(first + i64::try_from(start)?)
        .bind(first + i64::try_from(end)?)
        .execute(pool)
        .await?;
        if (end / batch) % 2 == 0 || end == conversations {
            step(&format!("  messages of {end} conversations"));
        }
    }
    sqlx::query(schema.sql(
        "INSERT INTO {schema}.tickets (subject, description, requester_id, status, resolved_at)
         SELECT (SELECT string_agg(($1::text[])[1 + floor(power(random(), 2)
                                   * cardinality($1::text[]))::int], ' ')
                   FROM generate_series(1, 3 + n % 4) w),
                (SELECT string_agg(($1::text[])[1 + floor(power(random(), 2)
                                   * cardinality($1::text[]))::int], ' ')
                   FROM generate_series(1, 20 + n % 40) w),
                md5('contact' || (1 + n % 20000))::uuid,
                CASE WHEN n % 3 = 0 THEN 'open' ELSE 'resolved' END,
                CASE WHEN n % 3 = 0 THEN NULL ELSE now() END
           FROM generate_series(1, 10000) n",
    ))
    .bind(&words)
    .execute(pool)
    .await?;
    // Two labels: one on every tenth conversation, one on every 500th.
    let common: Uuid = sqlx::query_scalar(schema.sql(
        "INSERT INTO {schema}.labels (name, color) VALUES ('Billing', '#2563eb') RETURNING id",
    ))
    .fetch_one(pool)
    .await?;
    let rare: Uuid =
        sqlx::query_scalar(schema.sql(
            "INSERT INTO {schema}.labels (name, color) VALUES ('Legal', '#dc2626') RETURNING id",
        ))
        .fetch_one(pool)
        .await?;
    sqlx::query(schema.sql(
        "INSERT INTO {schema}.conversation_labels (conversation_id, label_id)
         SELECT id, $1 FROM {schema}.conversations WHERE number % 10 = 0
         UNION ALL
         SELECT id, $2 FROM {schema}.conversations WHERE number % 500 = 0",
    ))
    .bind(common)
    .bind(rare)
    .execute(pool)
    .await?;
    // The agent has been here two years and has read all but every twentieth conversation
    // (their read mark at its last message): the unread filter has something to find, as
    // it does in a real inbox.
    sqlx::query(schema.sql(
        "UPDATE {schema}.agent_profiles SET joined_at = now() - interval '2 years' WHERE id = $1",
    ))
    .bind(agent)
    .execute(pool)
    .await?;
    sqlx::query(schema.sql(
        "INSERT INTO {schema}.conversation_reads (conversation_id, agent_id, read_at)
         SELECT id, $1, last_message_at FROM {schema}.conversations WHERE number % 20 <> 0",
    ))
    .bind(agent)
    .execute(pool)
    .await?;
    // What autovacuum does to a table soon after a bulk load: the statistics the planner
    // reads, and every page's rows marked as committed and visible. Without it the first
    // reads of each page set those marks and write the page back, so the first searches
    // would measure the load rather than the search.
    sqlx::raw_sql(schema.sql(
        "VACUUM (ANALYZE) {schema}.conversation_reads, {schema}.contacts, {schema}.conversations,
                 {schema}.messages, {schema}.tickets, {schema}.conversation_labels",
    ))
    .execute(pool)
    .await?;
    Ok((common, rare))
}

/// Each small workspace's contact, conversation and four messages.
const SMALL_SEED: &str = "WITH ct AS (INSERT INTO {schema}.contacts (email, name)
                                     VALUES ('someone@small.test', 'Someone') RETURNING id),
                               c AS (INSERT INTO {schema}.conversations (contact_id, subject)
                                     SELECT id, 'A kettle question' FROM ct RETURNING id)
                          INSERT INTO {schema}.messages (conversation_id, kind, body)
                          SELECT c.id, 'incoming', 'My kettle order has not arrived, please check'
                            FROM c, generate_series(1, 4)";

/// `requests` GETs of `path` with `token`, one at a time; the sorted latencies.
async fn timed_gets(
    client: &reqwest::Client,
    url: &str,
    token: &str,
    requests: usize,
) -> anyhow::Result<Vec<Duration>> {
    let mut times = Vec::with_capacity(requests);
    for _ in 0..requests {
        let started = Instant::now();
        let response = client.get(url).bearer_auth(token).send().await?;
        let status = response.status();
        let body = response.bytes().await?;
        times.push(started.elapsed());
        ensure!(
            status == 200,
            "{url}: {status} {}",
            String::from_utf8_lossy(&body)
        );
    }
    times.sort();
    Ok(times)
}

/// Replies per second through the API by `writers` writers over `conversations`.
async fn replies_per_second(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    conversations: &[String],
    writers: usize,
    seconds: u64,
) -> anyhow::Result<f64> {
    let done = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::new();
    for w in 0..writers {
        let url = format!(
            "{base}/api/conversations/{}/messages",
            conversations[w % conversations.len()]
        );
        let (client, token, done, stop) =
            (client.clone(), token.to_owned(), done.clone(), stop.clone());
        tasks.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                post_json(
                    &client,
                    url.clone(),
                    &token,
                    json!({"body": "Thanks for waiting: the replacement kettle ships today, tracking number to follow."}),
                )
                .await?;
                done.fetch_add(1, Ordering::Relaxed);
            }
            anyhow::Ok(())
        }));
    }
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let elapsed = started.elapsed();
    for task in tasks {
        task.await??;
    }
    Ok(done.load(Ordering::Relaxed) as f64 / elapsed.as_secs_f64())
}

/// A builder that starts with `EXPLAIN (ANALYZE, BUFFERS)`: the statement is appended to it
/// as the handler builds it, with the same binds.
fn explaining() -> QueryBuilder<sqlx::Postgres> {
    QueryBuilder::new("EXPLAIN (ANALYZE, BUFFERS) ")
}

/// The plan of the statement in `query` (see [`explaining`]), as text; `planned` as the API
/// runs it when it plans for the values (`Tenant::planned_read`).
async fn explain(
    pool: &PgPool,
    mut query: QueryBuilder<sqlx::Postgres>,
    planned: bool,
) -> anyhow::Result<String> {
    let mut tx = if planned {
        pool.begin_with(PLANNED_FOR_VALUES).await?
    } else {
        pool.begin().await?
    };
    let lines: Vec<String> = query.build_query_scalar().fetch_all(&mut *tx).await?;
    tx.rollback().await?;
    Ok(lines.join("\n"))
}

async fn run() -> anyhow::Result<()> {
    let conversations = knob("SEARCH_BENCH_CONVERSATIONS", 100_000).max(100);
    let per_conversation = knob("SEARCH_BENCH_MESSAGES", 10).max(2);
    let small = knob("SEARCH_BENCH_WORKSPACES", 2_000);
    let requests = knob("SEARCH_BENCH_REQUESTS", 200).max(10);
    let writers = knob("SEARCH_BENCH_WRITERS", 8).max(1);
    let seconds = knob("SEARCH_BENCH_SECONDS", 20).max(1) as u64;
    let started_all = Instant::now();
    let step = |what: &str| eprintln!("[{:>6.1} s] {what}", started_all.elapsed().as_secs_f64());
    let client = reqwest::Client::builder().no_proxy().build()?;

    step("creating the benchmark database and starting the API (release build)");
    let database = TestDatabase::empty().await;
    let env = bench_env(&database.url, &[]);
    let settings = Settings::load_from(None, Some(env.clone()))?;
    let (_server, base) = serve_api(&client, &env).await?;
    let pool = supportdesk_core::db::pool(&settings.database, 8);
    let jwt = jwt_keys(&settings)?;

    step("three workspaces through the API: the big one, and two to write replies in");
    let owners = insert_users(&pool, "search-owner-", 3, "unused").await?;
    let mut made = Vec::new();
    for (i, (user_id, _)) in owners.iter().enumerate() {
        let user_token = jwt.issue_user(*user_id, 0)?.token;
        let (id, token) =
            workspace_via_api(&client, &base, &user_token, &format!("Search {i}")).await?;
        let schema = TenantSchema::for_workspace(id);
        let agent: Uuid = sqlx::query_scalar(
            schema.sql("SELECT id FROM {schema}.agent_profiles WHERE user_id = $1"),
        )
        .bind(user_id)
        .fetch_one(&pool)
        .await?;
        made.push((id, token, schema, agent));
    }
    let (_, big_token, big, big_agent) = &made[0];

    step(&format!(
        "seeding the big workspace: {conversations} conversations, {} messages",
        conversations * per_conversation
    ));
    let seeding = Instant::now();
    let (common_label, rare_label) = seed(
        &pool,
        big,
        *big_agent,
        conversations,
        per_conversation,
        &step,
    )
    .await?;
    let seeded_in = seeding.elapsed();
    step(&format!("{small} small workspaces"));
    bare_workspaces(&pool, small, "small", Some(SMALL_SEED), 500).await?;

    let mut lines = vec![format!(
        "seeded {conversations} conversations and {} messages (with their search columns and indexes) in {:.0} s",
        conversations * per_conversation,
        seeded_in.as_secs_f64()
    )];

    // Baseline: one conversation by id through the same API.
    let some_conversation: Uuid = sqlx::query_scalar(
        big.sql("SELECT id FROM {schema}.conversations ORDER BY number OFFSET $1 LIMIT 1"),
    )
    .bind(i64::try_from(conversations / 2)?)
    .fetch_one(&pool)
    .await
    .context("a conversation for the baseline")?;
    step("baseline: GET /api/conversations/{id}");
    let baseline = timed_gets(
        &client,
        &format!("{base}/api/conversations/{some_conversation}"),
        big_token,
        requests,
    )
    .await?;
    let base_p99 = percentile(&baseline, 0.99);
    lines.push(format!(
        "baseline GET /api/conversations/{{id}}: p50 {} p99 {}",
        ms(percentile(&baseline, 0.50)),
        ms(base_p99)
    ));

    // 1. Search.
    let mut slowest_search = ("", "", Duration::ZERO);
    for (label, q) in SEARCHES {
        step(&format!("search: {label}"));
        let url = format!(
            "{base}/api/search?q={}",
            url::form_urlencoded::byte_serialize(q.as_bytes()).collect::<String>()
        );
        let times = timed_gets(&client, &url, big_token, requests).await?;
        let p99 = percentile(&times, 0.99);
        if p99 > slowest_search.2 {
            slowest_search = (label, q, p99);
        }
        lines.push(format!(
            "1. search, {label} ({q}): p50 {} p99 {} (budget: p99 under 100 ms); p99 / baseline p99 = {:.1}",
            ms(percentile(&times, 0.50)),
            ms(p99),
            p99.as_secs_f64() / base_p99.as_secs_f64().max(1e-9)
        ));
    }

    // 2. Filtered inbox pages.
    let inbox = [
        ("open and urgent", "status=open&priority=urgent".to_owned()),
        ("a label on a tenth", format!("label={common_label}")),
        ("a label on one in 500", format!("label={rare_label}")),
        ("email, pending", "channel=email&status=pending".to_owned()),
        ("mine, open", "assignee=me&status=open".to_owned()),
        ("unread", "unread=true".to_owned()),
    ];
    let mut slowest_inbox = ("", String::new(), Duration::ZERO);
    for (label, query) in &inbox {
        step(&format!("inbox: {label}"));
        let times = timed_gets(
            &client,
            &format!("{base}/api/conversations?{query}"),
            big_token,
            requests,
        )
        .await?;
        let p99 = percentile(&times, 0.99);
        if p99 > slowest_inbox.2 {
            slowest_inbox = (label, query.clone(), p99);
        }
        lines.push(format!(
            "2. inbox page, {label} (?{query}): p50 {} p99 {} (budget: p99 under 30 ms); p99 / baseline p99 = {:.1}",
            ms(percentile(&times, 0.50)),
            ms(p99),
            p99.as_secs_f64() / base_p99.as_secs_f64().max(1e-9)
        ));
    }

    // 3. Space.
    step("index sizes");
    for table in ["messages", "conversations", "tickets", "contacts"] {
        let (heap, column, index): (i64, i64, i64) = sqlx::query_as(sqlx::AssertSqlSafe(
            big.sql(&format!(
                "SELECT pg_table_size('{{schema}}.{table}'),
                        (SELECT coalesce(sum(pg_column_size(search)), 0)::bigint
                           FROM {{schema}}.{table}),
                        pg_relation_size('{{schema}}.{table}_search')"
            ))
            .0,
        ))
        .fetch_one(&pool)
        .await?;
        lines.push(format!(
            "3. {table}: table {:.1} MiB, of which the search column {:.1} MiB; its GIN index {:.1} MiB",
            heap as f64 / 1048576.0,
            column as f64 / 1048576.0,
            index as f64 / 1048576.0
        ));
    }
    let trigrams: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(
        big.sql("SELECT pg_relation_size('{schema}.contacts_trigrams')")
            .0,
    ))
    .fetch_one(&pool)
    .await?;
    lines.push(format!(
        "3. contacts: trigram index {:.1} MiB",
        trigrams as f64 / 1048576.0
    ));

    // 4. The write cost: the second workspace keeps its search columns, the third has them
    // dropped (their indexes go with them).
    let (_, with_token, _, _) = &made[1];
    let (_, without_token, without_schema, _) = &made[2];
    for table in ["messages", "conversations"] {
        sqlx::query(sqlx::AssertSqlSafe(
            without_schema
                .sql(&format!(
                    "ALTER TABLE {{schema}}.{table} DROP COLUMN search"
                ))
                .0,
        ))
        .execute(&pool)
        .await?;
    }
    let mut targets = Vec::new();
    for token in [with_token, without_token] {
        let mut ids = Vec::new();
        for c in 0..writers {
            let conversation = post_json(
                &client,
                format!("{base}/api/conversations"),
                token,
                json!({"contact": {"email": format!("writer{c}@bench.test")}, "body": "Hello"}),
            )
            .await?;
            ids.push(conversation["id"].as_str().context("id")?.to_owned());
        }
        targets.push(ids);
    }
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for round in 0..2 {
        step(&format!("write cost: round {round}"));
        without.push(
            replies_per_second(&client, &base, without_token, &targets[1], writers, seconds)
                .await?,
        );
        with.push(
            replies_per_second(&client, &base, with_token, &targets[0], writers, seconds).await?,
        );
    }
    let with = with.iter().sum::<f64>() / with.len() as f64;
    let without = without.iter().sum::<f64>() / without.len() as f64;
    lines.push(format!(
        "4. replies/s through the API, {writers} writers: without the search columns {without:.0}, with them {with:.0}: {:.1} % of the throughput kept (budget: at least 85 %)",
        100.0 * with / without
    ));

    // 5. Plans of the slowest of each.
    step("plans");
    let filters = Filters::default();
    let search = Search {
        words: slowest_search.1.to_owned(),
        kinds: kinds(None, &filters),
        filters,
    };
    let mut query = explaining();
    push_search_query(
        &mut query,
        big,
        &search,
        &Page {
            limit: 50,
            after: None,
        },
    );
    let search_plan = explain(&pool, query, true).await?;
    let owner_user = owners[0].0;
    let filter = inbox_filter(&slowest_inbox.1, common_label, rare_label, *big_agent);
    let mut query = explaining();
    conversations::push_list_query(
        &mut query,
        big,
        filter,
        Reader(Some(owner_user)),
        &Page {
            limit: 50,
            after: None,
        },
    );
    let inbox_plan = explain(&pool, query, filter.label.is_some()).await?;

    step("done");
    println!(
        "search benchmark ({} cores)",
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
    );
    for line in lines {
        println!("{line}");
    }
    println!(
        "\n5. plan of the slowest search, {} ({}):\n{search_plan}",
        slowest_search.0, slowest_search.1
    );
    println!(
        "\n5. plan of the slowest inbox page, {} (?{}):\n{inbox_plan}",
        slowest_inbox.0, slowest_inbox.1
    );
    Ok(())
}

/// The list filter the handler makes of one of the benchmark's inbox queries.
fn inbox_filter(query: &str, common: Uuid, rare: Uuid, me: Uuid) -> ListFilter {
    use supportdesk::conversations::record::{Channel, ConversationStatus};
    use supportdesk::inbox::priority::Priority;
    let mut filter = ListFilter::default();
    for pair in query.split('&') {
        match pair {
            "status=open" => filter.status = Some(ConversationStatus::Open),
            "status=pending" => filter.status = Some(ConversationStatus::Pending),
            "priority=urgent" => filter.priority = Some(Priority::Urgent),
            "channel=email" => filter.channel = Some(Channel::Email),
            "assignee=me" => filter.assignee = AssigneeFilter::Agent(me),
            "unread=true" => filter.unread = true,
            other => {
                if let Some(label) = other.strip_prefix("label=") {
                    filter.label = Some(if label == common.to_string() {
                        common
                    } else {
                        rare
                    });
                }
            }
        }
    }
    filter
}
