//! Faults delivery must survive with nothing lost: Redis dying, SMTP refusing, workers killed
//! or stopped mid-delivery, and mail that can never be delivered.

use std::collections::HashSet;
use std::time::Duration;

use supportdesk_core::outbox;
use supportdesk_test_support::redis_server::RedisServer;

use crate::harness::{signal, stack, stack_without_worker, unique_email, wait_exit};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signup_while_redis_is_down_is_delivered_once_redis_returns() {
    let mut redis = RedisServer::start();
    let url = redis.url();
    let stack = stack(&[("REDIS_URL", &url)]).await;
    redis.kill();

    let email = unique_email();
    stack.register(&email).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(
        stack.sink.received().is_empty(),
        "nothing can be queued yet"
    );
    let rows = stack.outbox().await;
    assert_eq!(
        (rows.len(), rows[0].1.as_deref()),
        (1, None),
        "the email waits in the outbox"
    );

    redis.restart();
    let received = stack.sink.wait_for(1, Duration::from_secs(45)).await;

    assert_eq!(received[0].rcpt_to, [email]);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(stack.sink.received().len(), 1, "delivered once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smtp_refusing_then_accepting_is_retried_and_delivered_once() {
    let stack = stack(&[]).await;
    stack.sink.refuse_transiently(true);
    let email = unique_email();
    stack.register(&email).await;

    let rows = stack
        .wait_outbox(Duration::from_secs(20), "two failed attempts", |rows| {
            rows.first().is_some_and(|r| r.2 >= 2)
        })
        .await;
    assert!(
        rows[0].3.as_deref().unwrap_or_default().contains("451"),
        "{rows:?}"
    );
    assert!(stack.sink.received().is_empty());

    stack.sink.accept_everyone();
    let received = stack.sink.wait_for(1, Duration::from_secs(20)).await;
    assert_eq!(received[0].rcpt_to, [email]);
    let rows = stack
        .wait_outbox(Duration::from_secs(5), "marked sent", |rows| {
            rows[0].1.as_deref() == Some("done")
        })
        .await;
    assert!(rows[0].2 >= 2, "{rows:?}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(stack.sink.received().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_attempts_the_email_is_dead_until_revived() {
    let stack = stack(&[("JOB_MAX_ATTEMPTS", "3")]).await;
    stack.sink.refuse_transiently(true);
    stack.register(&unique_email()).await;

    let rows = stack
        .wait_outbox(
            Duration::from_secs(30),
            "dead after three attempts",
            |rows| rows.first().is_some_and(|r| r.1.as_deref() == Some("dead")),
        )
        .await;
    assert_eq!(rows[0].2, 3);
    assert!(
        rows[0]
            .3
            .as_deref()
            .unwrap_or_default()
            .contains("after 3 attempts"),
        "{rows:?}"
    );
    let dead = outbox::list(&stack.db, true, 10).await.unwrap();
    assert_eq!(dead.len(), 1);

    stack.sink.accept_everyone();
    assert!(outbox::revive(&stack.db, rows[0].0).await.unwrap());
    stack.sink.wait_for(1, Duration::from_secs(20)).await;
    let rows = stack
        .wait_outbox(Duration::from_secs(5), "sent after revival", |rows| {
            rows[0].1.as_deref() == Some("done")
        })
        .await;
    assert_eq!(rows[0].2, 1, "a revived email gets a fresh set of attempts");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permanent_refusal_is_dead_at_once_and_revivable() {
    let stack = stack(&[]).await;
    let email = unique_email();
    stack.sink.reject_recipient(&email);
    stack.register(&email).await;

    let rows = stack
        .wait_outbox(Duration::from_secs(20), "dead", |rows| {
            rows.first().is_some_and(|r| r.1.as_deref() == Some("dead"))
        })
        .await;
    assert_eq!(rows[0].2, 1, "no retries after a 5xx");
    assert!(
        rows[0].3.as_deref().unwrap_or_default().contains("550"),
        "{rows:?}"
    );

    stack.sink.accept_everyone();
    assert_eq!(outbox::revive_all_dead(&stack.db).await.unwrap(), 1);
    let received = stack.sink.wait_for(1, Duration::from_secs(20)).await;
    assert_eq!(received[0].rcpt_to, [email]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_mid_delivery_loses_nothing() {
    // A short claim: the killed worker's claims must lapse before its tasks can be re-run.
    let stack = stack_without_worker(&[("WORKER_CONCURRENCY", "2"), ("JOB_CLAIM_SECS", "3")]).await;
    stack.sink.delay_data(Duration::from_millis(400));
    let mut emails = Vec::new();
    for _ in 0..12 {
        let email = unique_email();
        stack.register(&email).await;
        emails.push(email);
    }
    let mut first = stack.worker_process(&[]);
    stack.sink.wait_for(3, Duration::from_secs(30)).await;

    signal(&first, "-KILL");
    let _ = wait_exit(&mut first, Duration::from_secs(5));
    let mut second = stack.worker_process(&[]);
    let rows = stack
        .wait_outbox(Duration::from_secs(90), "every email sent", |rows| {
            rows.iter().all(|r| r.1.as_deref() == Some("done"))
        })
        .await;
    signal(&second, "-TERM");
    assert_eq!(wait_exit(&mut second, Duration::from_secs(30)), Some(0));

    let received = stack.sink.received();
    let recipients: HashSet<String> = received.iter().flat_map(|m| m.rcpt_to.clone()).collect();
    assert_eq!(
        recipients,
        emails.into_iter().collect(),
        "everyone got their email"
    );
    let ids: HashSet<String> = received
        .iter()
        .map(supportdesk_test_support::smtp_sink::Received::message_id)
        .collect();
    assert_eq!(ids.len(), rows.len());
    // A copy can only repeat if the kill fell between the server accepting it and the row
    // being marked: at most one per delivery in flight.
    assert!(
        received.len() <= rows.len() + 2,
        "{} messages for {} emails",
        received.len(),
        rows.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_lets_the_delivery_in_flight_finish() {
    let stack = stack_without_worker(&[]).await;
    stack.sink.delay_data(Duration::from_secs(3));
    stack.register(&unique_email()).await;
    let mut worker = stack.worker_process(&[]);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while stack.sink.data_started() == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "delivery never started"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    signal(&worker, "-TERM");
    assert_eq!(wait_exit(&mut worker, Duration::from_secs(30)), Some(0));

    assert_eq!(
        stack.sink.received().len(),
        1,
        "the message in flight was completed"
    );
    let rows = stack.outbox().await;
    assert_eq!(
        rows[0].1.as_deref(),
        Some("done"),
        "and recorded before exiting"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_the_mail_library_refuses_is_dead_not_stuck() {
    let stack = stack(&[]).await;
    let response = stack
        .client
        .post(format!("{}/auth/register", stack.api))
        .json(&serde_json::json!({"email": "\"a b\"@example.com", "password": crate::harness::PASSWORD, "fullName": "Quoted"}))
        .send()
        .await
        .unwrap();
    if response.status() != 201 {
        // Refused at the door: nothing can get stuck.
        return;
    }
    let rows = stack
        .wait_outbox(Duration::from_secs(20), "dead", |rows| {
            rows.first().is_some_and(|r| r.1.as_deref() == Some("dead"))
        })
        .await;
    assert_eq!(rows[0].2, 1);
    assert_eq!(outbox::list(&stack.db, true, 10).await.unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_whose_queue_task_was_lost_is_handed_over_again() {
    let mut stack = stack_without_worker(&[]).await;
    let email = unique_email();
    stack.register(&email).await;
    // As if a relay committed the hand-over and Redis then lost the task.
    sqlx::query(
        "UPDATE public.outbox SET relayed_at = now() - interval '10 minutes', relays = relays + 1",
    )
    .execute(&stack.db)
    .await
    .unwrap();
    // Nothing but the janitor's reconciliation (it runs as the worker starts) can deliver it.
    stack.start_worker().await;

    let received = stack.sink.wait_for(1, Duration::from_secs(15)).await;
    assert_eq!(received[0].rcpt_to, [email]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_task_of_an_earlier_hand_over_does_nothing() {
    let stack = stack(&[]).await;
    stack.register(&unique_email()).await;
    stack.sink.wait_for(1, Duration::from_secs(15)).await;
    let id = stack.outbox().await[0].0;
    let deliverer_db = stack.db.clone();
    // Replaying the first hand-over's task after the message is done: skipped, nothing sent.
    let claim = outbox::begin_attempt(&deliverer_db, id, 1, Duration::from_secs(60))
        .await
        .unwrap();
    assert!(matches!(claim, outbox::Claim::Nothing), "{claim:?}");
    let claim = outbox::begin_attempt(&deliverer_db, id, 7, Duration::from_secs(60))
        .await
        .unwrap();
    assert!(matches!(claim, outbox::Claim::Nothing), "{claim:?}");
    assert_eq!(stack.sink.received().len(), 1);
}
