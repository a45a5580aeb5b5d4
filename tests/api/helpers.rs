//! `spawn_app()`: the real router on a random port, over a fresh PostgreSQL database and a
//! private Redis namespace, so tests run in parallel and never see each other's data.

use reqwest::header::CONTENT_TYPE;
use reqwest::{Response, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use supportdesk_core::config::Settings;
use supportdesk_core::email_tokens::EmailTokenKey;
use supportdesk_core::outbox::messages::verification;
use supportdesk_test_support::api::{RunningApi, spawn_api};
use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::{http_client, test_env};
use uuid::Uuid;

pub use supportdesk_test_support::JWT_SECRET;
pub const PASSWORD: &str = "Corr3ctHorse";

pub struct TestApp {
    pub address: String,
    pub metrics_address: String,
    pub client: reqwest::Client,
    pub db: PgPool,
    pub settings: Settings,
    pub state: supportdesk::state::AppState,
    _api: RunningApi,
    // Last: dropped (and the database with it) after the server was told to stop.
    _database: TestDatabase,
}

/// Another API process over the same database and Redis namespace as `app` (a replica).
pub async fn spawn_replica(app: &TestApp) -> RunningApi {
    spawn_api(app.settings.clone()).await
}

/// A replica of `app` whose environment differs by `overrides` (another Redis, say).
pub async fn spawn_replica_with(app: &TestApp, overrides: &[(&str, &str)]) -> RunningApi {
    let mut all = vec![("REDIS_NAMESPACE", app.settings.redis.namespace.as_str())];
    all.extend_from_slice(overrides);
    let settings = Settings::load_from(None, Some(test_env(&app._database.url, &all)))
        .expect("replica settings are valid");
    spawn_api(settings).await
}

/// The app's files go with it, when they were kept in a directory of the test's own.
impl Drop for TestApp {
    fn drop(&mut self) {
        if let supportdesk_core::config::StorageLocation::Directory(dir) =
            &self.settings.storage.location
            && dir.starts_with(std::env::temp_dir().join("supportdesk-test-storage"))
        {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

impl TestApp {
    /// The `postgres://` URL of the app's database.
    pub fn database_url(&self) -> &str {
        &self._database.url
    }
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(&[]).await
}

/// An app whose environment differs from the default by `overrides`.
pub async fn spawn_app_with(overrides: &[(&str, &str)]) -> TestApp {
    spawn_app_on(TestDatabase::migrated().await, overrides).await
}

/// An app over `database` (migrated), whose environment differs from the default by
/// `overrides`.
pub async fn spawn_app_on(database: TestDatabase, overrides: &[(&str, &str)]) -> TestApp {
    let settings = Settings::load_from(None, Some(test_env(&database.url, overrides)))
        .expect("test settings are valid");
    let api = spawn_api(settings.clone()).await;
    TestApp {
        address: api.address.clone(),
        metrics_address: api.metrics_address.clone(),
        client: http_client(),
        db: database.pool().await,
        settings,
        state: api.state.clone(),
        _api: api,
        _database: database,
    }
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Response {
        let mut request = self.client.get(self.url(path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.expect("request")
    }

    pub async fn post_json(&self, path: &str, body: &Value, token: Option<&str>) -> Response {
        let mut request = self.client.post(self.url(path)).json(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.expect("request")
    }

    pub async fn register(&self, email: &str, password: &str, full_name: &str) -> Response {
        self.post_json(
            "/auth/register",
            &json!({"email": email, "password": password, "fullName": full_name}),
            None,
        )
        .await
    }

    /// Registers `email` with [`PASSWORD`]; the user token and the user's id.
    pub async fn signed_up(&self, email: &str) -> (String, Uuid) {
        let response = self.register(email, PASSWORD, "Test User").await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let body: Value = response.json().await.expect("json");
        (
            body["token"].as_str().expect("token").to_owned(),
            body["user"]["id"]
                .as_str()
                .expect("id")
                .parse()
                .expect("uuid"),
        )
    }

    pub async fn login(&self, email: &str, password: &str) -> Response {
        self.login_via(email, password, None).await
    }

    /// A login that claims to come through proxies (`X-Forwarded-For`).
    pub async fn login_via(
        &self,
        email: &str,
        password: &str,
        forwarded_for: Option<&str>,
    ) -> Response {
        let mut request = self
            .client
            .post(self.url("/auth/login"))
            .json(&json!({"email": email, "password": password}));
        if let Some(xff) = forwarded_for {
            request = request.header("x-forwarded-for", xff);
        }
        request.send().await.expect("request")
    }

    pub async fn me(&self, token: &str) -> Response {
        self.get("/auth/me", Some(token)).await
    }

    pub async fn verify_email(&self, token: &str) -> Response {
        self.client
            .get(self.url("/auth/verify-email"))
            .query(&[("token", token)])
            .send()
            .await
            .expect("request")
    }

    pub async fn resend_verification(&self, token: &str) -> Response {
        self.client
            .post(self.url("/auth/resend-verification"))
            .bearer_auth(token)
            .send()
            .await
            .expect("request")
    }

    /// The token of the newest verification email queued for `user_id`, derived exactly as
    /// the worker derives it when it renders the email.
    pub async fn verification_token(&self, user_id: Uuid) -> Option<String> {
        let id = self
            .newest_email_row(
                "verification_email",
                "verificationId",
                "email_verifications",
                user_id,
            )
            .await?;
        let key = EmailTokenKey::derive(&self.settings.email.token_secret);
        verification::pending(&self.db, &key, id)
            .await
            .expect("pending verification")
            .map(|p| p.token)
    }

    /// The token row (in `public.{table}`) of the newest `kind` email queued for `user_id`;
    /// the outbox payload names the row by `id_field`.
    pub async fn newest_email_row(
        &self,
        kind: &str,
        id_field: &str,
        table: &str,
        user_id: Uuid,
    ) -> Option<Uuid> {
        sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT t.id FROM public.outbox o
               JOIN public.{table} t ON t.id = (o.payload->>'{id_field}')::uuid
              WHERE o.kind = $1 AND t.user_id = $2
              ORDER BY o.created_at DESC LIMIT 1"
        )))
        .bind(kind)
        .bind(user_id)
        .fetch_optional(&self.db)
        .await
        .expect("query outbox")
    }

    pub async fn create_workspace(&self, token: &str, name: &str, slug: Option<&str>) -> Response {
        let mut body = json!({ "name": name });
        if let Some(slug) = slug {
            body["slug"] = json!(slug);
        }
        self.post_json("/workspaces", &body, Some(token)).await
    }

    pub async fn select(&self, token: &str, workspace_id: &str) -> Response {
        self.post_json(
            &format!("/workspaces/{workspace_id}/select"),
            &json!({}),
            Some(token),
        )
        .await
    }

    /// Registers `email` and verifies it by the emailed token, as a person who has proved
    /// the inbox (Owners need that to invite, and to own more than one workspace).
    pub async fn verified_user(&self, email: &str) -> (String, Uuid) {
        let (token, user_id) = self.signed_up(email).await;
        let verification = self
            .verification_token(user_id)
            .await
            .expect("a verification email is queued");
        assert_eq!(
            self.verify_email(&verification).await.status(),
            StatusCode::OK
        );
        (token, user_id)
    }

    /// A new verified user owning a new workspace ("Workspace <slug>"), selected.
    pub async fn owner_with_workspace(&self, slug: &str) -> Owner {
        let (user_token, user_id) = self.verified_user(&unique_email()).await;
        self.owned_workspace(user_token, user_id, &format!("Workspace {slug}"), slug)
            .await
    }

    /// A workspace `name` made by the user `user_token` / `user_id`, and selected: the Owner
    /// as the tests use them.
    pub async fn owned_workspace(
        &self,
        user_token: String,
        user_id: Uuid,
        name: &str,
        slug: &str,
    ) -> Owner {
        let created = self.create_workspace(&user_token, name, Some(slug)).await;
        assert_eq!(created.status(), StatusCode::CREATED);
        let workspace_id: Uuid = created.json::<Value>().await.expect("json")["id"]
            .as_str()
            .expect("id")
            .parse()
            .expect("uuid");
        let selected: Value = self
            .select(&user_token, &workspace_id.to_string())
            .await
            .json()
            .await
            .expect("json");
        Owner {
            user_token,
            user_id,
            workspace_id,
            workspace_token: selected["token"].as_str().expect("token").to_owned(),
        }
    }

    /// Adds `user_id` to the workspace directly, with an agent profile (tests that are not
    /// about invitations), and tells every replica.
    pub async fn add_member(&self, workspace_id: Uuid, user_id: Uuid, role: &str) {
        let mut tx = self.db.begin().await.expect("begin");
        sqlx::query(
            "INSERT INTO public.memberships (workspace_id, user_id, role) VALUES ($1, $2, $3)",
        )
        .bind(workspace_id)
        .bind(user_id)
        .bind(role)
        .execute(&mut *tx)
        .await
        .expect("add member");
        supportdesk::workspaces::provision::add_profile(
            &mut tx,
            &supportdesk_core::tenancy::TenantSchema::for_workspace(workspace_id),
            user_id,
        )
        .await
        .expect("add profile");
        tx.commit().await.expect("commit");
        self.state.memberships.changed(user_id, workspace_id).await;
    }

    /// The Owner deletes the workspace (`DELETE /api/workspace`, 202).
    pub async fn delete_workspace(&self, owner: &Owner) {
        let response = self
            .send(
                reqwest::Method::DELETE,
                "/api/workspace",
                None,
                Some(&owner.workspace_token),
            )
            .await;
        assert_eq!(response.status(), StatusCode::ACCEPTED);
    }

    pub async fn count(&self, table: &str) -> i64 {
        sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT count(*) FROM public.{table}"
        )))
        .fetch_one(&self.db)
        .await
        .expect("count")
    }
}

/// Asserts an RFC 9457 problem with this status and code, and returns its body.
pub async fn assert_problem(response: Response, status: StatusCode, code: &str) -> Value {
    assert_eq!(response.status(), status, "status");
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let body: Value = response.json().await.expect("problem body is JSON");
    assert_eq!(
        content_type, "application/problem+json",
        "content type of {body}"
    );
    assert_eq!(body["status"], status.as_u16(), "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["detail"].as_str().is_some_and(|d| !d.is_empty()),
        "detail must be a non-empty message: {body}"
    );
    assert!(
        body["type"].as_str().is_some_and(|t| !t.is_empty()),
        "{body}"
    );
    assert!(
        body["title"].as_str().is_some_and(|t| !t.is_empty()),
        "{body}"
    );
    body
}

pub struct Owner {
    pub user_token: String,
    pub user_id: Uuid,
    pub workspace_id: Uuid,
    pub workspace_token: String,
}

pub fn unique_email() -> String {
    format!("user-{}@example.com", Uuid::new_v4().simple())
}

/// A member other than the Owner, joined through the real invitation flow.
pub struct Member {
    pub email: String,
    pub user_token: String,
    pub user_id: Uuid,
    pub agent_id: Uuid,
    pub workspace_token: String,
}

impl TestApp {
    pub async fn patch_json(&self, path: &str, body: &Value, token: Option<&str>) -> Response {
        let mut request = self.client.patch(self.url(path)).json(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.expect("request")
    }

    pub async fn put_json(&self, path: &str, body: &Value, token: Option<&str>) -> Response {
        let mut request = self.client.put(self.url(path)).json(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.expect("request")
    }

    pub async fn delete(&self, path: &str, token: Option<&str>) -> Response {
        let mut request = self.client.delete(self.url(path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.expect("request")
    }

    pub async fn invite(&self, token: &str, email: &str, role: &str) -> Response {
        self.post_json(
            "/api/agents/invite",
            &json!({"email": email, "role": role}),
            Some(token),
        )
        .await
    }

    /// The token in invitation `id`'s email, derived exactly as the worker derives it.
    pub async fn invitation_token(&self, id: &str) -> String {
        let key = EmailTokenKey::derive(&self.settings.email.token_secret);
        supportdesk_core::outbox::messages::invitation::pending(
            &self.db,
            &key,
            id.parse().expect("uuid"),
        )
        .await
        .expect("pending invitation")
        .expect("the invitation is open")
        .token
    }

    /// Invites `email` and returns the invitation's token.
    pub async fn invited(&self, owner_token: &str, email: &str, role: &str) -> String {
        let response = self.invite(owner_token, email, role).await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let body: Value = response.json().await.expect("json");
        self.invitation_token(body["invitation"]["id"].as_str().expect("id"))
            .await
    }

    pub async fn accept(&self, body: &Value, user_token: Option<&str>) -> Response {
        self.post_json("/invitations/accept", body, user_token)
            .await
    }

    /// The agents of the workspace, as `GET /api/agents?status=all` shows them.
    pub async fn agents(&self, token: &str) -> Vec<Value> {
        let response = self.get("/api/agents?status=all", Some(token)).await;
        assert_eq!(response.status(), StatusCode::OK);
        let body: Value = response.json().await.expect("json");
        body["agents"].as_array().expect("agents").clone()
    }

    pub async fn agent_id_of(&self, token: &str, user_id: Uuid) -> Uuid {
        self.agents(token)
            .await
            .iter()
            .find(|a| a["userId"] == user_id.to_string())
            .expect("the user is an agent here")["id"]
            .as_str()
            .expect("id")
            .parse()
            .expect("uuid")
    }

    /// A new account invited into `owner`'s workspace with `role`, accepted, and selected.
    pub async fn member(&self, owner: &Owner, role: &str) -> Member {
        let email = unique_email();
        let (user_token, user_id) = self.signed_up(&email).await;
        let token = self.invited(&owner.workspace_token, &email, role).await;
        let accepted = self
            .accept(&json!({ "token": token }), Some(&user_token))
            .await;
        assert_eq!(accepted.status(), StatusCode::OK);
        let selected: Value = self
            .select(&user_token, &owner.workspace_id.to_string())
            .await
            .json()
            .await
            .expect("json");
        Member {
            agent_id: self.agent_id_of(&owner.workspace_token, user_id).await,
            email,
            user_token,
            user_id,
            workspace_token: selected["token"].as_str().expect("token").to_owned(),
        }
    }

    /// A new API key of `owner`'s workspace: (id, secret).
    pub async fn api_key(&self, owner_token: &str) -> (String, String) {
        let response = self
            .post_json(
                "/api/settings/api-keys",
                &json!({"name": "integration"}),
                Some(owner_token),
            )
            .await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let body: Value = response.json().await.expect("json");
        (
            body["id"].as_str().expect("id").to_owned(),
            body["key"].as_str().expect("key").to_owned(),
        )
    }
}
