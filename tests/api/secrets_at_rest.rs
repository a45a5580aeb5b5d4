//! Nothing that works as a credential is stored: not API keys, not invitation or
//! verification tokens, not JWTs, not passwords. Scans every row of every table.

use serde_json::{Value, json};

use crate::helpers::{PASSWORD, spawn_app, unique_email};

#[tokio::test]
async fn no_table_holds_a_usable_secret() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let (_, api_key) = app.api_key(&owner.workspace_token).await;
    let email = unique_email();
    let invitation_token = app.invited(&owner.workspace_token, &email, "agent").await;
    let accepted: Value = app
        .accept(
            &json!({"token": invitation_token, "fullName": "Bea", "password": PASSWORD}),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    let pending_invitation = app
        .invited(&owner.workspace_token, &unique_email(), "agent")
        .await;
    let (user_token, user_id) = app.signed_up(&unique_email()).await;
    let verification_token = app.verification_token(user_id).await.unwrap();

    let secrets = [
        ("API key", api_key.clone()),
        ("API key's secret part", api_key[16..].to_owned()),
        ("accepted invitation token", invitation_token),
        ("pending invitation token", pending_invitation),
        ("verification token", verification_token),
        ("user token", user_token),
        (
            "new account's token",
            accepted["token"].as_str().unwrap().to_owned(),
        ),
        ("workspace token", owner.workspace_token.clone()),
        ("password", PASSWORD.to_owned()),
    ];

    let tables: Vec<(String, String)> = sqlx::query_as(
        "SELECT table_schema::text, table_name::text FROM information_schema.tables
          WHERE table_type = 'BASE TABLE'
            AND table_schema NOT IN ('pg_catalog', 'information_schema')",
    )
    .fetch_all(&app.db)
    .await
    .unwrap();
    assert!(tables.iter().any(|(_, t)| t == "api_keys"));
    assert!(tables.iter().any(|(s, _)| s.starts_with("ws_")));
    let mut scanned = 0;
    for (schema, table) in tables {
        let rows: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT t::text FROM \"{schema}\".\"{table}\" t"
        )))
        .fetch_all(&app.db)
        .await
        .unwrap();
        for row in rows {
            scanned += 1;
            for (what, secret) in &secrets {
                let hex = secret
                    .bytes()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>();
                assert!(
                    !row.contains(secret.as_str()) && !row.contains(&hex),
                    "{what} found in {schema}.{table}"
                );
            }
        }
    }
    assert!(scanned > 10, "scanned only {scanned} rows");
}
