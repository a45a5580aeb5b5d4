//! Notification emails end to end: the API writes notices and schedules work in the
//! transaction of the change, the worker sends one digest per agent (or a visitor's unseen
//! replies) through SMTP. Work is made due by moving its `available_at`, as the outbox's own
//! clock would after the window, instead of waiting for it.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_test_support::smtp_sink::Received;
use uuid::Uuid;

use crate::harness::{PASSWORD, Stack, stack, unique_email};

const SITE: &str = "https://shop.example";
const DIGEST_SUBJECT: &str = "New activity in your Support Desk inbox";
const VISITOR_SUBJECT: &str = "You have a new reply in your chat";

struct Agent {
    token: String,
    id: Uuid,
    email: String,
}

/// A workspace with its owner ("Olivia Owner") and two agents ("Tom Baker", "Bea Jones").
struct Team {
    stack: Stack,
    workspace_id: Uuid,
    owner: Agent,
    tom: Agent,
    bea: Agent,
    /// Emails the sink had once the team was made (their address verifications).
    baseline: usize,
}

async fn register(stack: &Stack, full_name: &str) -> (String, Uuid, String) {
    let email = unique_email();
    let (status, body) = stack
        .call(
            Method::POST,
            "/auth/register",
            None,
            Some(json!({"email": email, "password": PASSWORD, "fullName": full_name})),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let id = body["user"]["id"].as_str().unwrap().parse().unwrap();
    (body["token"].as_str().unwrap().to_owned(), id, email)
}

async fn select(stack: &Stack, user_token: &str, workspace_id: Uuid) -> String {
    let (status, selected) = stack
        .call(
            Method::POST,
            &format!("/workspaces/{workspace_id}/select"),
            Some(user_token),
            None,
        )
        .await;
    assert_eq!(status, 200, "{selected}");
    selected["token"].as_str().unwrap().to_owned()
}

/// The bearer token the MTA presents to `POST /inbound/email`.
const INBOUND_SECRET: &str = "inbound-secret-0123456789abcdef0123";

async fn team() -> Team {
    let stack = stack(&[("INBOUND_EMAIL_SECRET", INBOUND_SECRET)]).await;
    let (owner_user, owner_id, owner_email) = register(&stack, "Olivia Owner").await;
    let (status, workspace) = stack
        .call(
            Method::POST,
            "/workspaces",
            Some(&owner_user),
            Some(json!({"name": "Acme Support", "slug": "acme"})),
        )
        .await;
    assert_eq!(status, 201, "{workspace}");
    let workspace_id: Uuid = workspace["id"].as_str().unwrap().parse().unwrap();
    let mut members = Vec::new();
    for name in ["Tom Baker", "Bea Jones"] {
        let (user_token, user_id, email) = register(&stack, name).await;
        let mut tx = stack.db.begin().await.unwrap();
        sqlx::query(
            "INSERT INTO public.memberships (workspace_id, user_id, role) VALUES ($1, $2, 'agent')",
        )
        .bind(workspace_id)
        .bind(user_id)
        .execute(&mut *tx)
        .await
        .unwrap();
        supportdesk::workspaces::provision::add_profile(
            &mut tx,
            &TenantSchema::for_workspace(workspace_id),
            user_id,
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
        members.push((
            select(&stack, &user_token, workspace_id).await,
            user_id,
            email,
        ));
    }
    let owner_token = select(&stack, &owner_user, workspace_id).await;
    let (_, agents) = stack
        .call(Method::GET, "/api/agents", Some(&owner_token), None)
        .await;
    let agent_id = |user_id: Uuid| -> Uuid {
        agents["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["userId"].as_str() == Some(&user_id.to_string()))
            .unwrap_or_else(|| panic!("agent of {user_id} in {agents}"))["id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap()
    };
    let owner = Agent {
        token: owner_token.clone(),
        id: agent_id(owner_id),
        email: owner_email,
    };
    let mut members = members.into_iter().map(|(token, user_id, email)| Agent {
        token,
        id: agent_id(user_id),
        email,
    });
    let (tom, bea) = (members.next().unwrap(), members.next().unwrap());
    let baseline = stack.sink.wait_for(3, Duration::from_secs(15)).await.len();
    Team {
        stack,
        workspace_id,
        owner,
        tom,
        bea,
        baseline,
    }
}

impl Team {
    /// The random tag of the workspace's forwarding address.
    async fn inbound_tag(&self) -> String {
        sqlx::query_scalar("SELECT inbound_tag FROM public.workspaces WHERE id = $1")
            .bind(self.workspace_id)
            .fetch_one(&self.stack.db)
            .await
            .unwrap()
    }

    /// Starts a conversation as `agent`; its id and number.
    async fn conversation(&self, agent: &Agent, subject: &str) -> (Uuid, i64) {
        let body = json!({
            "contact": {"email": unique_email(), "name": "Carla Diaz"},
            "subject": subject,
            "body": "Hello Carla",
        });
        let (status, created) = self
            .stack
            .call(
                Method::POST,
                "/api/conversations",
                Some(&agent.token),
                Some(body),
            )
            .await;
        assert_eq!(status, 201, "{created}");
        (
            created["id"].as_str().unwrap().parse().unwrap(),
            created["number"].as_i64().unwrap(),
        )
    }

    async fn assign(&self, by: &Agent, conversation: Uuid, to: Uuid) {
        let (status, body) = self
            .stack
            .call(
                Method::POST,
                &format!("/api/conversations/{conversation}/assign"),
                Some(&by.token),
                Some(json!({"assigneeId": to})),
            )
            .await;
        assert_eq!(status, 200, "{body}");
    }

    async fn post(&self, by: &Agent, conversation: Uuid, what: &str, body: &str) {
        let (status, posted) = self
            .stack
            .call(
                Method::POST,
                &format!("/api/conversations/{conversation}/{what}"),
                Some(&by.token),
                Some(json!({"body": body})),
            )
            .await;
        assert_eq!(status, 201, "{posted}");
    }

    /// Scheduled work of `kind`: (id, outcome, available_at - now in seconds).
    async fn work(&self, kind: &str) -> Vec<(Uuid, Option<String>, f64)> {
        sqlx::query_as(
            "SELECT id, outcome, extract(epoch FROM available_at - now())::float8
               FROM public.outbox WHERE kind = $1 ORDER BY created_at",
        )
        .bind(kind)
        .fetch_all(&self.stack.db)
        .await
        .unwrap()
    }

    /// Makes every waiting message of `kind` due now (as if its window had passed) and waits
    /// until all of them are finished.
    async fn deliver(&self, kind: &str) -> Vec<Option<String>> {
        sqlx::query(
            "UPDATE public.outbox SET available_at = now()
              WHERE kind = $1 AND outcome IS NULL AND relayed_at IS NULL",
        )
        .bind(kind)
        .execute(&self.stack.db)
        .await
        .unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(15);
        loop {
            let work = self.work(kind).await;
            if work.iter().all(|w| w.1.is_some()) {
                return work.into_iter().map(|w| w.1).collect();
            }
            assert!(std::time::Instant::now() < deadline, "{kind}: {work:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The emails sent since the team was made, with this subject.
    fn mails(&self, subject: &str) -> Vec<Received> {
        self.stack.sink.received()[self.baseline..]
            .iter()
            .filter(|m| m.subject() == subject)
            .cloned()
            .collect()
    }

    /// A widget visitor on [`SITE`] who left `email`; their token.
    async fn visitor(&self, email: &str) -> String {
        let (status, settings) = self
            .stack
            .call(
                Method::PATCH,
                "/api/settings/widget",
                Some(&self.owner.token),
                Some(json!({"allowedOrigins": [SITE]})),
            )
            .await;
        assert_eq!(status, 200, "{settings}");
        let session: Value = self
            .stack
            .client
            .post(format!("{}/widget/v1/sessions", self.stack.api))
            .header("origin", SITE)
            .json(&json!({"siteKey": settings["siteKey"]}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let token = session["token"]
            .as_str()
            .expect("a visitor token")
            .to_owned();
        let (status, contact) = self
            .visitor_call(
                Method::POST,
                "/widget/v1/contact",
                &token,
                Some(json!({"email": email})),
            )
            .await;
        assert_eq!(status, 200, "{contact}");
        token
    }

    async fn visitor_call(
        &self,
        method: Method,
        path: &str,
        token: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        self.stack.call(method, path, Some(token), body).await
    }

    /// The visitor writes; the conversation's id.
    async fn visitor_says(&self, token: &str, body: &str) -> Uuid {
        let (status, posted) = self
            .visitor_call(
                Method::POST,
                "/widget/v1/messages",
                token,
                Some(json!({"body": body})),
            )
            .await;
        assert_eq!(status, 201, "{posted}");
        posted["conversationId"].as_str().unwrap().parse().unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assignments_in_the_window_make_one_email_without_the_ones_undone() {
    let team = team().await;
    let mut numbers = Vec::new();
    for subject in ["Refund", "Broken zip", "Invoice"] {
        let (id, number) = team.conversation(&team.owner, subject).await;
        team.assign(&team.owner, id, team.tom.id).await;
        numbers.push(number);
    }
    // Assigned to Tom, then taken back by the owner before the email went: not listed.
    let (taken_back, taken_number) = team.conversation(&team.owner, "Taken back").await;
    team.assign(&team.owner, taken_back, team.tom.id).await;
    team.assign(&team.owner, taken_back, team.owner.id).await;
    // Tom takes one himself: nobody is told.
    let (own, own_number) = team.conversation(&team.bea, "Own").await;
    team.assign(&team.tom, own, team.tom.id).await;

    let work = team.work("agent_digest_email").await;
    assert_eq!(
        work.len(),
        1,
        "later notices join the first one's message: {work:?}"
    );
    assert!(work[0].2 > 60.0, "due about two minutes out: {work:?}");
    assert_eq!(
        team.deliver("agent_digest_email").await,
        [Some("done".into())]
    );

    let mails = team.mails(DIGEST_SUBJECT);
    assert_eq!(mails.len(), 1);
    let mail = &mails[0];
    assert_eq!(mail.rcpt_to, std::slice::from_ref(&team.tom.email));
    let text = mail.text();
    for number in &numbers {
        assert!(text.contains(&format!("#{number} ")), "#{number}: {text}");
    }
    assert_eq!(
        text.matches("assigned this conversation to you").count(),
        3,
        "{text}"
    );
    assert!(text.contains("\"Olivia Owner\" assigned"), "{text}");
    assert!(!text.contains(&format!("#{taken_number} ")), "{text}");
    assert!(!text.contains(&format!("#{own_number} ")), "{text}");
    assert!(text.contains("http://desk.test/inbox/"), "{text}");
    assert!(
        mail.html().contains("href=\"http://desk.test/inbox/"),
        "{}",
        mail.html()
    );

    // Delivered once: a message scheduled by a race finds nothing and is skipped.
    sqlx::query(
        "INSERT INTO public.outbox (id, kind, payload)
         VALUES (gen_random_uuid(), 'agent_digest_email',
                 jsonb_build_object('workspaceId', $1::uuid, 'agentId', $2::uuid))",
    )
    .bind(team.workspace_id)
    .bind(team.tom.id)
    .execute(&team.stack.db)
    .await
    .unwrap();
    let outcomes = team.deliver("agent_digest_email").await;
    assert_eq!(outcomes, [Some("done".into()), Some("skipped".into())]);
    assert_eq!(team.mails(DIGEST_SUBJECT).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_email_with_the_preference_off_or_for_a_deactivated_agent() {
    let team = team().await;
    let (status, profile) = team
        .stack
        .call(
            Method::PATCH,
            "/api/me/profile",
            Some(&team.tom.token),
            Some(json!({"notificationPreferences": {"emailOnAssignment": false}})),
        )
        .await;
    assert_eq!(status, 200, "{profile}");
    let (for_tom, _) = team.conversation(&team.owner, "For Tom").await;
    team.assign(&team.owner, for_tom, team.tom.id).await;
    assert!(
        team.work("agent_digest_email").await.is_empty(),
        "Tom turned it off"
    );

    let (for_bea, _) = team.conversation(&team.owner, "For Bea").await;
    team.assign(&team.owner, for_bea, team.bea.id).await;
    assert_eq!(team.work("agent_digest_email").await.len(), 1);
    let (status, body) = team
        .stack
        .call(
            Method::POST,
            &format!("/api/agents/{}/deactivate", team.bea.id),
            Some(&team.owner.token),
            None,
        )
        .await;
    assert!(status < 300, "{status} {body}");

    assert_eq!(
        team.deliver("agent_digest_email").await,
        [Some("skipped".into())]
    );
    assert!(team.mails(DIGEST_SUBJECT).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mention_in_a_note_emails_the_agent_but_never_the_author() {
    let team = team().await;
    let (id, number) = team.conversation(&team.owner, "Mentions").await;
    team.post(
        &team.owner,
        id,
        "notes",
        "@tom baker can you check the refund? cc @Olivia Owner",
    )
    .await;
    // Bea mentioning "Tom" alone names nobody: the name is "Tom Baker".
    team.post(&team.bea, id, "notes", "@Tom, anything?").await;

    assert_eq!(team.work("agent_digest_email").await.len(), 1, "Tom's only");
    assert_eq!(
        team.deliver("agent_digest_email").await,
        [Some("done".into())]
    );
    let mails = team.mails(DIGEST_SUBJECT);
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].rcpt_to, std::slice::from_ref(&team.tom.email));
    let text = mails[0].text();
    assert!(text.contains(&format!("#{number} ")), "{text}");
    assert!(
        text.contains("\"Olivia Owner\" mentioned you in a note."),
        "{text}"
    );
    assert!(text.contains("can you check the refund?"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_contact_reply_the_agent_read_before_the_email_is_skipped() {
    let team = team().await;
    let visitor = team.visitor("carla@example.org").await;
    let conversation = team.visitor_says(&visitor, "Hello?").await;
    team.assign(&team.owner, conversation, team.tom.id).await;
    assert_eq!(
        team.deliver("agent_digest_email").await,
        [Some("done".into())]
    );

    team.visitor_says(&visitor, "Are you there?").await;
    let work = team.work("agent_digest_email").await;
    assert_eq!(
        work.len(),
        2,
        "the contact's reply is a notice for Tom: {work:?}"
    );
    let (status, _) = team
        .stack
        .call(
            Method::POST,
            &format!("/api/conversations/{conversation}/read"),
            Some(&team.tom.token),
            None,
        )
        .await;
    assert_eq!(status, 204);
    let outcomes = team.deliver("agent_digest_email").await;
    assert_eq!(outcomes, [Some("done".into()), Some("skipped".into())]);
    assert_eq!(team.mails(DIGEST_SUBJECT).len(), 1, "only the assignment's");

    // Unread, it is emailed.
    team.visitor_says(&visitor, "Hello again?").await;
    let outcomes = team.deliver("agent_digest_email").await;
    assert_eq!(outcomes.last(), Some(&Some("done".into())));
    let mails = team.mails(DIGEST_SUBJECT);
    assert_eq!(mails.len(), 2);
    let text = mails[1].text();
    assert!(text.contains("The contact wrote again"), "{text}");
    assert!(text.contains("Hello again?"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unseen_replies_are_emailed_to_the_visitor_once_per_ten_minutes_without_notes() {
    let team = team().await;
    let visitor = team.visitor("carla@example.org").await;
    let (status, _) = team
        .visitor_call(
            Method::PUT,
            "/widget/v1/context",
            &visitor,
            Some(json!({"pageUrl": format!("{SITE}/orders?id=3#top")})),
        )
        .await;
    assert_eq!(status, 204);
    let conversation = team.visitor_says(&visitor, "Where is my order?").await;
    team.post(&team.owner, conversation, "messages", "It ships today.")
        .await;
    team.post(&team.owner, conversation, "notes", "Internal: refund risk")
        .await;
    team.post(
        &team.owner,
        conversation,
        "messages",
        "Tracking follows by email.",
    )
    .await;

    let work = team.work("visitor_reply_email").await;
    assert_eq!(
        work.len(),
        1,
        "the second reply is carried by the first's: {work:?}"
    );
    assert!(
        work[0].2 > 30.0,
        "due after the visitor could see it in the chat: {work:?}"
    );
    assert_eq!(
        team.deliver("visitor_reply_email").await,
        [Some("done".into())]
    );

    let mails = team.mails(VISITOR_SUBJECT);
    assert_eq!(mails.len(), 1);
    let mail = &mails[0];
    assert_eq!(mail.rcpt_to, ["carla@example.org"]);
    let (text, html) = (mail.text(), mail.html());
    for part in [&text, &html] {
        assert!(part.contains("It ships today"), "{part}");
        assert!(part.contains("Tracking follows by email"), "{part}");
        assert!(part.contains("Where is my order?"), "{part}");
        assert!(
            !part.contains("refund risk"),
            "a note in a visitor's email: {part}"
        );
        assert!(part.contains("Acme Support"), "{part}");
        assert!(part.contains("reply to this email"), "{part}");
    }
    assert!(text.contains("2 new replies"), "{text}");
    assert!(
        text.contains("https://shop.example/orders?id=3#supportdesk-chat"),
        "{text}"
    );

    // The email is in the conversation's thread: Carla's answer to it continues the chat.
    let parsed = mail.parsed();
    let reply_to = parsed
        .reply_to()
        .and_then(|r| r.first())
        .and_then(|m| m.address())
        .expect("Reply-To")
        .to_owned();
    let message_id = mail.message_id();
    let token = message_id.split('@').next().unwrap();
    assert_eq!(
        reply_to,
        format!("acme.{}+{token}@desk.test", team.inbound_tag().await)
    );
    let answer = format!(
        "From: carla@example.org\r\nTo: {reply_to}\r\nSubject: Re: {VISITOR_SUBJECT}\r\n\
         Message-ID: <answer-1@example.org>\r\nIn-Reply-To: <{message_id}>\r\n\r\n\
         Thanks, got it.\r\n"
    );
    let response = team
        .stack
        .client
        .post(format!("{}/inbound/email", team.stack.api))
        .bearer_auth(INBOUND_SECRET)
        .header("Content-Type", "message/rfc822")
        .body(answer)
        .send()
        .await
        .unwrap();
    let receipt: Value = response.json().await.unwrap();
    assert_eq!(receipt["outcome"], "added", "{receipt}");
    assert_eq!(receipt["conversationId"], conversation.to_string());

    // The next reply waits until ten minutes after that email.
    team.post(&team.owner, conversation, "messages", "Any news?")
        .await;
    let work = team.work("visitor_reply_email").await;
    assert_eq!(work.len(), 2);
    assert!(work[1].2 > 540.0, "{work:?}");

    // Seen in the chat before it was due: skipped.
    let (status, _) = team
        .visitor_call(Method::POST, "/widget/v1/conversation/read", &visitor, None)
        .await;
    assert_eq!(status, 204);
    let outcomes = team.deliver("visitor_reply_email").await;
    assert_eq!(outcomes, [Some("done".into()), Some("skipped".into())]);
    assert_eq!(team.mails(VISITOR_SUBJECT).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_visitor_without_an_address_or_an_agent_started_conversation_gets_no_email() {
    let team = team().await;
    let (status, settings) = team
        .stack
        .call(
            Method::PATCH,
            "/api/settings/widget",
            Some(&team.owner.token),
            Some(json!({"allowedOrigins": [SITE]})),
        )
        .await;
    assert_eq!(status, 200);
    let session: Value = team
        .stack
        .client
        .post(format!("{}/widget/v1/sessions", team.stack.api))
        .header("origin", SITE)
        .json(&json!({"siteKey": settings["siteKey"]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let anonymous = session["token"].as_str().unwrap().to_owned();
    let conversation = team.visitor_says(&anonymous, "Hi").await;
    team.post(&team.owner, conversation, "messages", "Hello!")
        .await;
    // Started by an agent with an address: the email channel's, not the chat's.
    let (started, _) = team.conversation(&team.owner, "Manual").await;
    team.post(&team.owner, started, "messages", "Follow-up")
        .await;
    assert!(team.work("visitor_reply_email").await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_visitor_read_mark_needs_a_visitor_token() {
    let team = team().await;
    let (status, problem) = team
        .stack
        .call(Method::POST, "/widget/v1/conversation/read", None, None)
        .await;
    assert_eq!(status, 401, "{problem}");
    let (status, _) = team
        .stack
        .call(
            Method::POST,
            "/widget/v1/conversation/read",
            Some(&team.owner.token),
            None,
        )
        .await;
    assert_eq!(status, 403);
    // No conversation yet: nothing to mark, still 204.
    let visitor = team.visitor("dan@example.org").await;
    let (status, _) = team
        .visitor_call(Method::POST, "/widget/v1/conversation/read", &visitor, None)
        .await;
    assert_eq!(status, 204);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_conversation_is_emailed_to_the_agents_who_asked_for_it() {
    let team = team().await;
    let (status, _) = team
        .stack
        .call(
            Method::PATCH,
            "/api/me/profile",
            Some(&team.bea.token),
            Some(json!({"notificationPreferences": {"emailOnNewConversation": true}})),
        )
        .await;
    assert_eq!(status, 200);
    let visitor = team.visitor("carla@example.org").await;
    team.visitor_says(&visitor, "My parcel is lost").await;
    // Bea starts one herself: not told of her own.
    team.conversation(&team.bea, "Her own").await;

    assert_eq!(
        team.deliver("agent_digest_email").await,
        [Some("done".into())]
    );
    let mails = team.mails(DIGEST_SUBJECT);
    assert_eq!(
        mails.len(),
        1,
        "Bea only: the others keep the default (off)"
    );
    assert_eq!(mails[0].rcpt_to, std::slice::from_ref(&team.bea.email));
    let text = mails[0].text();
    assert_eq!(
        text.matches("A new conversation was started.").count(),
        1,
        "{text}"
    );
    assert!(text.contains("My parcel is lost"), "{text}");
    assert!(!text.contains("Her own"), "{text}");
}
