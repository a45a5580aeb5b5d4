//! Which browser origins may call which routes. Every credential travels in
//! `Authorization`, never in a cookie, so a page of another origin gains nothing from a
//! visitor's browser that it could not send itself: CORS here decides which web apps may
//! read the answers, not who is authenticated.
//!
//! - The dashboard's routes (everything people call): the origin of `APP_URL`, and
//!   `CORS_ALLOWED_ORIGINS`.
//! - The widget's visitor routes: the widget app's origin (`WIDGET_URL`).
//! - The hub's negotiate: both.
//! - Widget sessions: origins some workspace allows (`widget::sessions::allowed_origins`).
//! - The widget loader's origin check: any origin (it answers only whether the caller's origin
//!   is allowed, which a refused page must be able to read).
//!
//! One layer ([`ByPath`]) over the whole router picks the rule by path. It sits outside the
//! routes' own layers and their 405 answers (set router-wide, outside the authorization
//! layer, so a wrong method is 405 whoever asks): a preflight is answered before any of them.

use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, Method, header};
use supportdesk_core::config::ApplicationSettings;
use tower::{Layer, Service};
use tower_http::cors::Cors;

use crate::state::AppState;
use supportdesk_core::config::origin_of;
use tower_http::cors::{AllowOrigin, CorsLayer};

/// Browsers may cache a preflight's answer this long.
const MAX_AGE: Duration = Duration::from_secs(600);

fn header_value(origin: &str) -> Option<HeaderValue> {
    HeaderValue::from_str(origin).ok()
}

/// The dashboard's origins: `APP_URL`'s and `CORS_ALLOWED_ORIGINS`.
pub fn dashboard_origins(application: &ApplicationSettings) -> Vec<HeaderValue> {
    let app = origin_of(&application.app_url).ok();
    app.iter()
        .chain(&application.cors_allowed_origins)
        .filter_map(|o| header_value(o))
        .collect()
}

/// The widget app's origin (`WIDGET_URL`), when configured.
pub fn widget_origin(application: &ApplicationSettings) -> Option<HeaderValue> {
    application
        .widget_url
        .as_deref()
        .and_then(|url| origin_of(url).ok())
        .and_then(|o| header_value(&o))
}

/// The routes people call from the dashboard.
pub fn dashboard(application: &ApplicationSettings) -> CorsLayer {
    CorsLayer::new()
        .allow_origin(AllowOrigin::list(dashboard_origins(application)))
        .allow_methods([
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
        ])
        .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE])
        // A CSV export names its file (`Content-Disposition`).
        .expose_headers([
            header::RETRY_AFTER,
            header::CONTENT_DISPOSITION,
            HeaderName::from_static("x-request-id"),
        ])
        .max_age(MAX_AGE)
}

/// The widget's visitor routes (and its sessions, with `origins` of their own).
pub fn widget(origins: AllowOrigin) -> CorsLayer {
    CorsLayer::new()
        .allow_origin(origins)
        .allow_methods([Method::GET, Method::POST, Method::PUT, Method::PATCH])
        .allow_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            HeaderName::from_static("x-requested-with"),
        ])
        .expose_headers([header::RETRY_AFTER])
        .max_age(MAX_AGE)
}

/// The hub's negotiate, for the dashboard and the widget, with the headers the official
/// SignalR client sends. It asks for credentials (`withCredentials`), which are allowed
/// though ours never travel in cookies.
pub fn negotiate(application: &ApplicationSettings) -> CorsLayer {
    let mut origins = dashboard_origins(application);
    origins.extend(widget_origin(application));
    CorsLayer::new()
        .allow_origin(AllowOrigin::list(origins))
        .allow_credentials(true)
        .allow_methods([Method::POST])
        .allow_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            HeaderName::from_static("x-requested-with"),
            HeaderName::from_static("x-signalr-user-agent"),
        ])
        .max_age(MAX_AGE)
}

/// The CORS rule of every route, chosen by the request's path.
#[derive(Clone)]
pub struct ByPath(Arc<Rules>);

struct Rules {
    dashboard: CorsLayer,
    negotiate: CorsLayer,
    sessions: CorsLayer,
    visitor: CorsLayer,
    origin_check: CorsLayer,
}

impl ByPath {
    pub fn new(state: &AppState) -> Self {
        let application = &state.settings.application;
        Self(Arc::new(Rules {
            dashboard: dashboard(application),
            negotiate: negotiate(application),
            sessions: widget(crate::widget::sessions::allowed_origins(state)),
            visitor: widget(AllowOrigin::list(widget_origin(application))),
            origin_check: CorsLayer::new()
                .allow_origin(AllowOrigin::any())
                .allow_methods([Method::GET])
                .expose_headers([header::RETRY_AFTER])
                .max_age(MAX_AGE),
        }))
    }
}

impl<S> Layer<S> for ByPath {
    type Service = CorsByPath<S>;

    fn layer(&self, inner: S) -> Self::Service {
        CorsByPath {
            rules: self.0.clone(),
            inner,
        }
    }
}

/// The router clones a route's service for every request, so this holds the rules behind one
/// pointer and wraps the route in the one rule its path needs when the request comes.
#[derive(Clone)]
pub struct CorsByPath<S> {
    rules: Arc<Rules>,
    inner: S,
}

impl<S> Service<Request> for CorsByPath<S>
where
    S: Service<Request> + Clone,
    Cors<S>: Service<Request, Error = S::Error>,
{
    type Response = <Cors<S> as Service<Request>>::Response;
    type Error = S::Error;
    type Future = <Cors<S> as Service<Request>>::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let path = request.uri().path();
        let rule = if path == "/widget/v1/sessions" {
            &self.rules.sessions
        } else if path.starts_with("/widget/v1/sites/") && path.ends_with("/origin-check") {
            &self.rules.origin_check
        } else if path.starts_with("/widget/") {
            &self.rules.visitor
        } else if path.starts_with("/hubs/") {
            &self.rules.negotiate
        } else {
            &self.rules.dashboard
        };
        // `inner` was made ready in `poll_ready`; the clone left behind serves the next call.
        let clone = self.inner.clone();
        let ready = std::mem::replace(&mut self.inner, clone);
        rule.layer(ready).call(request)
    }
}
