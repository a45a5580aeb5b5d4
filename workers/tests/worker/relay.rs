//! When the relay looks at the outbox again: never at once while nothing waits (an idle
//! worker sleeps its poll interval, or until a NOTIFY), at once when a message is due.

use std::time::Duration;

use supportdesk_core::outbox::{self, MessageKind};
use supportdesk_test_support::database::TestDatabase;
use uuid::Uuid;

#[tokio::test]
async fn the_relay_waits_for_the_next_due_message_and_not_at_all_when_none_waits() {
    let database = TestDatabase::migrated().await;
    let db = database.pool().await;
    assert_eq!(
        outbox::next_due_in(&db, &MessageKind::ALL).await.unwrap(),
        None
    );

    let id = Uuid::now_v7();
    sqlx::query(
        "INSERT INTO public.outbox (id, kind, payload, available_at)
         VALUES ($1, 'drop_workspace', '{}', now() + interval '60 seconds')",
    )
    .bind(id)
    .execute(&db)
    .await
    .unwrap();
    let later = outbox::next_due_in(&db, &MessageKind::ALL)
        .await
        .unwrap()
        .unwrap();
    assert!(
        later > Duration::from_secs(50) && later <= Duration::from_secs(60),
        "{later:?}"
    );

    sqlx::query(
        "UPDATE public.outbox SET available_at = now() - interval '5 seconds' WHERE id = $1",
    )
    .bind(id)
    .execute(&db)
    .await
    .unwrap();
    assert_eq!(
        outbox::next_due_in(&db, &MessageKind::ALL).await.unwrap(),
        Some(Duration::ZERO)
    );

    // A message of a kind this release does not know (a newer one wrote it during a rolling
    // upgrade) is not due for this relay, which would otherwise never sleep.
    sqlx::query("UPDATE public.outbox SET kind = 'from_a_newer_release' WHERE id = $1")
        .bind(id)
        .execute(&db)
        .await
        .unwrap();
    assert_eq!(
        outbox::next_due_in(&db, &MessageKind::ALL).await.unwrap(),
        None
    );
}
