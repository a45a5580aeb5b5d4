//! `GET /api/search`: ranking and snippets, web-search syntax at its edges, filters, pages,
//! and that a search never leaves its workspace.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, spawn_app, unique_email};
use crate::helpers_conversations::id;
use crate::helpers_widget::SITE;

fn encode(q: &str) -> String {
    url::form_urlencoded::byte_serialize(q.as_bytes()).collect()
}

impl TestApp {
    /// `GET /api/search?q=...&rest`, asserting 200; the results.
    async fn search(&self, token: &str, q: &str, rest: &str) -> Vec<Value> {
        let body = self
            .get_ok(&format!("/api/search?q={}{rest}", encode(q)), token)
            .await;
        body["results"].as_array().expect("results").clone()
    }

    async fn reply(&self, token: &str, conversation: &str, kind: &str, body: &str) -> Value {
        self.json_ok(
            Method::POST,
            &format!("/api/conversations/{conversation}/{kind}"),
            &json!({"body": body}),
            token,
            StatusCode::CREATED,
        )
        .await
    }
}

fn of_type<'a>(results: &'a [Value], kind: &str) -> Vec<&'a Value> {
    results.iter().filter(|r| r["type"] == kind).collect()
}

#[tokio::test]
async fn words_find_messages_notes_tickets_and_conversations_best_first_with_marks() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("search-rank").await;
    let token = owner.workspace_token.as_str();
    let conversation = app
        .start_conversation(token, &unique_email(), "Your parcel left the warehouse.")
        .await;
    let conversation = id(&conversation);
    let reply = app
        .reply(
            token,
            &conversation,
            "messages",
            "We refunded the order; the refund shows in 3 days.",
        )
        .await;
    let note = app
        .reply(
            token,
            &conversation,
            "notes",
            "Customer asked about a refund once before.",
        )
        .await;
    let ticket = app
        .open_ticket(
            token,
            &unique_email(),
            json!({"subject": "Refund for a broken kettle", "description": "Sent photos"}),
        )
        .await;

    // "refunds" meets "refunded" and "refund" by their stem.
    let results = app.search(token, "refunds", "").await;
    let ids: Vec<&str> = results.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert!(ids.contains(&id(&reply).as_str()), "{results:?}");
    assert!(
        ids.contains(&id(&note).as_str()),
        "notes are searched: {results:?}"
    );
    assert!(ids.contains(&id(&ticket).as_str()), "{results:?}");
    // The reply names it twice: it ranks above the note, which names it once.
    let rank_of = |wanted: &str| {
        results
            .iter()
            .find(|r| r["id"] == wanted)
            .map(|r| r["rank"].as_f64().unwrap())
            .unwrap()
    };
    assert!(rank_of(&id(&reply)) > rank_of(&id(&note)), "{results:?}");
    let ranks: Vec<f64> = results
        .iter()
        .map(|r| r["rank"].as_f64().unwrap())
        .collect();
    assert!(
        ranks.windows(2).all(|w| w[0] >= w[1]),
        "best first: {ranks:?}"
    );
    let hit = results.iter().find(|r| r["id"] == id(&reply)).unwrap();
    assert_eq!(hit["type"], "message");
    assert_eq!(hit["conversationId"], conversation.as_str());
    assert_eq!(hit["title"], "Order");
    let highlight = hit["highlight"].as_str().unwrap();
    assert!(
        highlight.contains("<mark>refunded</mark>") && highlight.contains("<mark>refund</mark>"),
        "{highlight}"
    );
    assert!(hit["createdAt"].is_string());
    // The conversation itself by its subject.
    let by_subject = app.search(token, "order", "&type=conversations").await;
    assert_eq!(by_subject.len(), 1, "{by_subject:?}");
    assert_eq!(by_subject[0]["id"], conversation.as_str());
    // A word in no document finds nothing.
    assert!(app.search(token, "zeppelin", "").await.is_empty());
}

#[tokio::test]
async fn phrases_or_and_minus_follow_web_search_syntax_and_accents_fold() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("search-syntax").await;
    let token = owner.workspace_token.as_str();
    let c = id(&app
        .start_conversation(token, &unique_email(), "hello")
        .await);
    let blue = id(&app
        .reply(token, &c, "messages", "The blue kettle arrived broken.")
        .await);
    let red = id(&app
        .reply(token, &c, "messages", "A red kettle, broken blue lid.")
        .await);
    let crepe = id(&app
        .reply(token, &c, "messages", "José ordered a crêpe pan.")
        .await);
    let found = |results: Vec<Value>| {
        let mut ids: Vec<String> = results
            .iter()
            .filter(|r| r["type"] == "message")
            .map(|r| r["id"].as_str().unwrap().to_owned())
            .collect();
        ids.sort();
        ids
    };
    let sorted = |mut ids: Vec<String>| {
        ids.sort();
        ids
    };
    assert_eq!(
        found(app.search(token, "\"blue kettle\"", "").await),
        [blue.as_str()]
    );
    assert_eq!(
        found(app.search(token, "kettle -red", "").await),
        [blue.as_str()]
    );
    assert_eq!(
        found(app.search(token, "crepe or lid", "").await),
        sorted(vec![red, crepe.clone()])
    );
    assert_eq!(found(app.search(token, "jose", "").await), [crepe.as_str()]);
    assert_eq!(found(app.search(token, "CRÊPE", "").await), [crepe]);
}

#[tokio::test]
async fn odd_input_is_a_200_or_a_400_never_a_500() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("search-edges").await;
    let token = owner.workspace_token.as_str();
    let c = id(&app
        .start_conversation(token, &unique_email(), "the kettle")
        .await);
    app.reply(token, &c, "messages", "It is the one with the lid.")
        .await;
    for q in [
        "the",
        "\"unbalanced",
        "\"",
        "-",
        "or",
        "!!! & | <-> :*",
        "a\\b'c",
        "((",
        "50%_off",
        &"kettle ".repeat(285),
        &"é".repeat(2000),
    ] {
        let response = app
            .get(&format!("/api/search?q={}", encode(q)), Some(token))
            .await;
        assert_eq!(response.status(), StatusCode::OK, "{q:?}");
    }
    // Stop words alone still find the words as written.
    assert!(!app.search(token, "the", "").await.is_empty());
    for (path, field) in [
        ("/api/search".to_owned(), "q"),
        ("/api/search?q=".to_owned(), "q"),
        ("/api/search?q=%20%20".to_owned(), "q"),
        (format!("/api/search?q={}", "a".repeat(2001)), "q"),
        (
            "/api/search?q=a&createdAfter=2026-02-01T00:00:00Z&createdBefore=2026-01-01T00:00:00Z"
                .to_owned(),
            "createdBefore",
        ),
    ] {
        let body = assert_problem(
            app.get(&path, Some(token)).await,
            StatusCode::BAD_REQUEST,
            "validation_failed",
        )
        .await;
        assert!(body["errors"][field].is_array(), "{path}: {body}");
    }
    for path in [
        "/api/search?q=a%00b",
        "/api/search?q=a&type=everything",
        "/api/search?q=a&status=lost",
        "/api/search?q=a&createdAfter=yesterday",
        "/api/search?q=a&cursor=bm90IGpzb24",
        "/api/search?q=a&limit=0",
        "/api/search?q=a&assignee=someone",
    ] {
        let response = app.get(path, Some(token)).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{path}");
    }
}

#[tokio::test]
async fn snippets_show_markup_in_messages_as_text() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("search-xss").await;
    let token = owner.workspace_token.as_str();
    let c = id(&app
        .start_conversation(token, &unique_email(), "hello")
        .await);
    app.reply(
        token,
        &c,
        "messages",
        "<img src=x onerror=alert(1)> refund \u{E000}&amp;",
    )
    .await;
    let results = app.search(token, "refund", "&type=messages").await;
    let highlight = results[0]["highlight"].as_str().unwrap();
    assert!(highlight.contains("<mark>refund</mark>"), "{highlight}");
    // Markup reaches the snippet as text: no element but `<mark>`.
    assert!(highlight.contains("&gt;"), "{highlight}");
    let bare = highlight.replace("<mark>", "").replace("</mark>", "");
    assert!(!bare.contains('<') && !bare.contains('>'), "{highlight}");
    assert_eq!(highlight.matches("<mark>").count(), 1, "{highlight}");
    assert_eq!(highlight.matches("</mark>").count(), 1, "{highlight}");
}

#[tokio::test]
async fn contacts_are_found_by_part_of_an_address_and_a_misspelt_name() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("search-contacts").await;
    let token = owner.workspace_token.as_str();
    let email = format!(
        "carla.mendes.{}@shop.example",
        uuid::Uuid::new_v4().simple()
    );
    app.json_ok(
        Method::POST,
        "/api/conversations",
        &json!({"contact": {"email": email, "name": "Carla Mendes"}, "body": "Hi"}),
        token,
        StatusCode::CREATED,
    )
    .await;
    for q in ["mendes", "Mendez", "carla mendes", "shop.exam", &email] {
        let results = app.search(token, q, "&type=contacts").await;
        assert_eq!(results.len(), 1, "{q}: {results:?}");
        assert_eq!(results[0]["title"], "Carla Mendes");
        assert!(results[0].get("conversationId").is_none());
    }
    assert!(app.search(token, "zzzz", "&type=contacts").await.is_empty());
}

#[tokio::test]
async fn filters_narrow_conversations_messages_and_tickets() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("search-filters").await;
    let token = owner.workspace_token.as_str();
    let open = id(&app
        .start_conversation(token, &unique_email(), "kettle one")
        .await);
    let resolved = id(&app
        .start_conversation(token, &unique_email(), "kettle two")
        .await);
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{resolved}/status"),
        &json!({"status": "resolved"}),
        token,
        StatusCode::OK,
    )
    .await;
    let ticket = app
        .open_ticket(
            token,
            &unique_email(),
            json!({"subject": "Kettle", "priority": "high"}),
        )
        .await;
    let everything = app.search(token, "kettle", "").await;
    assert_eq!(of_type(&everything, "message").len(), 2, "{everything:?}");
    assert_eq!(of_type(&everything, "ticket").len(), 1, "{everything:?}");

    let resolved_only = app.search(token, "kettle", "&status=resolved").await;
    assert!(
        resolved_only
            .iter()
            .all(|r| r["conversationId"] == resolved.as_str()),
        "{resolved_only:?}"
    );
    assert_eq!(resolved_only.len(), 1, "{resolved_only:?}");
    let open_only = app.search(token, "kettle", "&status=open").await;
    assert!(
        open_only
            .iter()
            .any(|r| r["conversationId"] == open.as_str())
    );
    assert!(open_only.iter().any(|r| r["id"] == id(&ticket)));
    let high = app.search(token, "kettle", "&priority=high").await;
    assert_eq!(high.len(), 1, "{high:?}");
    assert_eq!(high[0]["id"], id(&ticket));
    let tickets = app.search(token, "kettle", "&type=tickets").await;
    assert_eq!(tickets.len(), 1);
    let chats = app.search(token, "kettle", "&channel=chat").await;
    assert!(
        chats.is_empty(),
        "agent-started conversations are manual: {chats:?}"
    );
    let manual = app.search(token, "kettle", "&channel=manual").await;
    assert_eq!(manual.len(), 2, "{manual:?}");
    let mine = app
        .search(token, "kettle", "&assignee=me&type=messages")
        .await;
    assert_eq!(mine.len(), 2, "the starter is the assignee: {mine:?}");
    let unassigned = app.search(token, "kettle", "&assignee=unassigned").await;
    assert!(
        unassigned.iter().all(|r| r["type"] == "ticket"),
        "{unassigned:?}"
    );
    let future = app
        .search(token, "kettle", "&createdAfter=2999-01-01T00:00:00Z")
        .await;
    assert!(future.is_empty());
    let past = app
        .search(token, "kettle", "&createdBefore=2999-01-01T00:00:00Z")
        .await;
    assert_eq!(past.len(), everything.len());
}

#[tokio::test]
async fn pages_follow_each_other_without_repeats() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("search-pages").await;
    let token = owner.workspace_token.as_str();
    let c = id(&app
        .start_conversation(token, &unique_email(), "kettle")
        .await);
    for n in 0..6 {
        let body = format!("kettle {}", "kettle ".repeat(n % 3));
        app.reply(token, &c, "messages", &body).await;
    }
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(cursor) => format!("/api/search?q=kettle&limit=2&cursor={cursor}"),
            None => "/api/search?q=kettle&limit=2".to_owned(),
        };
        let page = app.get_ok(&path, token).await;
        let results = page["results"].as_array().unwrap();
        assert!(results.len() <= 2);
        seen.extend(results.iter().cloned());
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    let all = app.search(token, "kettle", "&limit=50").await;
    assert_eq!(seen, all, "pages in order equal one long page");
    // Seven messages (the first one and six replies): every one once.
    assert_eq!(of_type(&all, "message").len(), 7);
}

#[tokio::test]
async fn a_search_never_leaves_its_workspace_and_visitors_never_search() {
    let app = spawn_app().await;
    let ours = app.owner_with_workspace("search-ours").await;
    let theirs = app.owner_with_workspace("search-theirs").await;
    let secret = format!("xylophone{}", uuid::Uuid::new_v4().simple());
    let c = id(&app
        .start_conversation(&theirs.workspace_token, &unique_email(), &secret)
        .await);
    app.reply(&theirs.workspace_token, &c, "notes", &secret)
        .await;
    assert_eq!(
        app.search(&theirs.workspace_token, &secret, "").await.len(),
        2
    );
    assert!(
        app.search(&ours.workspace_token, &secret, "")
            .await
            .is_empty()
    );
    // An API key of the workspace searches it; an agent of it too.
    let (_, key) = app.api_key(&theirs.workspace_token).await;
    assert_eq!(app.search(&key, &secret, "").await.len(), 2);
    let agent = app.join(&theirs, "agent").await;
    assert_eq!(app.search(&agent.token, &secret, "").await.len(), 2);
    let (_, our_key) = app.api_key(&ours.workspace_token).await;
    assert!(app.search(&our_key, &secret, "").await.is_empty());

    // A visitor's token is not a member's: refused as the wrong kind, whatever the words.
    let site_key = app.widget_site(&theirs, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;
    let refused = app
        .get(
            &format!("/api/search?q={}", encode(&secret)),
            Some(&visitor.token),
        )
        .await;
    assert_problem(refused, StatusCode::FORBIDDEN, "wrong_token_type").await;
    let anonymous = app
        .get(&format!("/api/search?q={}", encode(&secret)), None)
        .await;
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_workspace_searches_in_the_language_its_owner_chose() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("search-french").await;
    let token = owner.workspace_token.as_str();
    let english = app.owner_with_workspace("search-english").await;
    app.start_conversation(token, &unique_email(), "Les chevaux sont arrivés.")
        .await;
    app.start_conversation(
        &english.workspace_token,
        &unique_email(),
        "Les chevaux sont arrivés.",
    )
    .await;
    let messages = |token: String| {
        let app = &app;
        async move { app.search(&token, "cheval", "&type=messages").await.len() }
    };
    assert_eq!(messages(token.to_owned()).await, 0, "English keeps chevaux");
    let settings = app.get_ok("/api/settings", token).await;
    assert_eq!(settings["search"]["language"], "english");

    // Bad values change nothing; an agent may not choose.
    for bad in [
        json!({"search": {"language": "klingon"}}),
        json!({"search": {"lang": "french"}}),
        json!({"search": "french"}),
    ] {
        let refused = app.patch_json("/api/settings", &bad, Some(token)).await;
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST, "{bad}");
    }
    let agent = app.join(&owner, "agent").await;
    let refused = app
        .patch_json(
            "/api/settings",
            &json!({"search": {"language": "french"}}),
            Some(&agent.token),
        )
        .await;
    assert_problem(refused, StatusCode::FORBIDDEN, "owner_only").await;
    let reindexing = || async {
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM public.outbox
              WHERE kind = 'reindex_search' AND payload ->> 'workspaceId' = $1",
        )
        .bind(owner.workspace_id.to_string())
        .fetch_one(&app.db)
        .await
        .unwrap()
    };
    assert_eq!(reindexing().await, 0);

    // French: new messages at once, with the re-indexing queued in the same transaction.
    let changed = app
        .json_ok(
            Method::PATCH,
            "/api/settings",
            &json!({"search": {"language": "french"}}),
            token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(changed["search"]["language"], "french");
    assert_eq!(reindexing().await, 1);
    app.start_conversation(token, &unique_email(), "Deux chevaux de plus.")
        .await;
    assert_eq!(messages(token.to_owned()).await, 1, "the new message only");
    // What the worker does with the message: every row written again.
    let written = supportdesk_core::search::reindex(&app.db, owner.workspace_id, 2)
        .await
        .unwrap();
    assert!(written.is_some_and(|rows| rows >= 4), "{written:?}");
    assert_eq!(messages(token.to_owned()).await, 2, "the past message too");
    // The same language again queues nothing; another workspace is untouched.
    app.json_ok(
        Method::PATCH,
        "/api/settings",
        &json!({"search": {"language": "french"}}),
        token,
        StatusCode::OK,
    )
    .await;
    assert_eq!(reindexing().await, 1);
    assert_eq!(messages(english.workspace_token.clone()).await, 0);
    let audit = app.get_ok("/api/audit-log", token).await;
    assert!(
        audit.to_string().contains("french"),
        "the change is in the audit log: {audit}"
    );
}
