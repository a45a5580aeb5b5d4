//! The janitor's clean-up pass, run directly instead of waiting for its minute.

use std::time::Duration;

use sqlx::PgPool;
use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::redis_url;
use supportdesk_worker::janitor::{self, UNVERIFIED_ACCOUNT_RETENTION};
use uuid::Uuid;

/// A user registered `age_days` ago.
async fn user(db: &PgPool, verified: bool, age_days: i32) -> Uuid {
    let id = Uuid::now_v7();
    sqlx::query(
        "INSERT INTO public.users (id, email, full_name, password_hash, email_verified, created_at)
         VALUES ($1, $2, 'Someone', 'x', $3, now() - make_interval(days => $4))",
    )
    .bind(id)
    .bind(format!("{}@example.com", id.simple()))
    .bind(verified)
    .bind(age_days)
    .execute(db)
    .await
    .unwrap();
    id
}

async fn exists(db: &PgPool, id: Uuid) -> bool {
    sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM public.users WHERE id = $1)")
        .bind(id)
        .fetch_one(db)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unverified_accounts_that_own_nothing_are_removed_after_seven_days() {
    assert_eq!(
        UNVERIFIED_ACCOUNT_RETENTION,
        Duration::from_secs(7 * 24 * 3600)
    );
    let database = TestDatabase::migrated().await;
    let db = database.pool().await;
    let abandoned = user(&db, false, 8).await;
    let member = user(&db, false, 8).await;
    let recent = user(&db, false, 6).await;
    let verified = user(&db, true, 30).await;
    let workspace = Uuid::now_v7();
    sqlx::query(
        "INSERT INTO public.workspaces (id, name, slug, schema_name) VALUES ($1, 'Acme', 'acme', $2)",
    )
    .bind(workspace)
    .bind(format!("ws_{}", workspace.simple()))
    .execute(&db)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO public.memberships (workspace_id, user_id, role, status)
         VALUES ($1, $2, 'agent', 'deactivated')",
    )
    .bind(workspace)
    .bind(member)
    .execute(&db)
    .await
    .unwrap();
    // Its pending verification goes with it.
    sqlx::query(
        "INSERT INTO public.email_verifications (id, user_id, email, nonce, token_hash, expires_at)
         VALUES ($1, $2, 'x@example.com', '\\x00', '\\x01', now())",
    )
    .bind(Uuid::now_v7())
    .bind(abandoned)
    .execute(&db)
    .await
    .unwrap();

    let redis = redis::Client::open(redis_url())
        .unwrap()
        .get_connection_manager()
        .await
        .unwrap();
    let namespace = format!("sdtest:{}", Uuid::new_v4().simple());
    janitor::clean_up(&db, &redis, &namespace).await;

    assert!(
        !exists(&db, abandoned).await,
        "unverified, 8 days, no workspace"
    );
    assert!(
        exists(&db, member).await,
        "in a workspace, even deactivated"
    );
    assert!(exists(&db, recent).await, "still within its 7 days");
    assert!(exists(&db, verified).await, "verified");
    let verifications: i64 = sqlx::query_scalar("SELECT count(*) FROM public.email_verifications")
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(verifications, 0);
    let members: i64 = sqlx::query_scalar("SELECT count(*) FROM public.memberships")
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(members, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unclaimed_accounts_are_removed_in_bounded_batches() {
    let database = TestDatabase::migrated().await;
    let db = database.pool().await;
    for _ in 0..5 {
        user(&db, false, 10).await;
    }
    let retention = UNVERIFIED_ACCOUNT_RETENTION;
    assert_eq!(
        janitor::remove_unclaimed_accounts(&db, retention, 3)
            .await
            .unwrap(),
        3
    );
    assert_eq!(
        janitor::remove_unclaimed_accounts(&db, retention, 3)
            .await
            .unwrap(),
        2
    );
    assert_eq!(
        janitor::remove_unclaimed_accounts(&db, retention, 3)
            .await
            .unwrap(),
        0
    );
}
