//! One webhook request: signed as Standard Webhooks says (`webhook-id`, `webhook-timestamp`,
//! `webhook-signature` with one `v1,` signature per live secret), sent with a 15 s timeout, no
//! redirects followed and no proxy, to an address the guard allows.
//!
//! The guard sits in the client's resolver: every address a host name resolves to is judged
//! when the connection is made, so a DNS answer that changed since the endpoint was saved
//! cannot slip through; an address written in the URL is judged before sending.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{CONTENT_TYPE, HeaderValue, RETRY_AFTER, USER_AGENT};
use supportdesk_core::webhooks::guard::AddressGuard;

/// How long a receiver may take to answer.
pub const TIMEOUT: Duration = Duration::from_secs(15);
/// How much of an answer the delivery log keeps.
const EXCERPT_BYTES: usize = 2048;

/// What a receiver answered, or why it could not be asked.
#[derive(Debug)]
pub struct Answer {
    pub status: Option<u16>,
    pub latency: Duration,
    pub excerpt: Option<String>,
    /// `Retry-After` in seconds, when the receiver gave one.
    pub retry_after: Option<Duration>,
    /// Why it failed (no answer, a refused address, a status other than 2xx).
    pub error: Option<String>,
}

impl Answer {
    pub fn succeeded(&self) -> bool {
        self.error.is_none()
    }
}

/// The request to send: its event's id, when it is signed, and its body.
pub struct Request<'a> {
    pub url: &'a str,
    pub event_id: &'a str,
    pub timestamp: i64,
    pub body: String,
    /// The secrets that sign it (the current one, and the previous one while a rotation
    /// overlaps).
    pub secrets: &'a [Vec<u8>],
}

#[derive(Clone)]
pub struct Sender {
    client: reqwest::Client,
    guard: AddressGuard,
    /// `WEBHOOK_ALLOW_HTTP`: plain http endpoints may be called.
    allow_http: bool,
}

impl Sender {
    pub fn new(guard: AddressGuard, allow_http: bool) -> anyhow::Result<Self> {
        let client = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .connect_timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .dns_resolver(Arc::new(GuardedResolver {
                guard: guard.clone(),
            }))
            .build()?;
        Ok(Self {
            client,
            guard,
            allow_http,
        })
    }

    pub async fn send(&self, request: Request<'_>) -> Answer {
        let started = Instant::now();
        let failed = |error: String| Answer {
            status: None,
            latency: started.elapsed(),
            excerpt: None,
            retry_after: None,
            error: Some(error),
        };
        let url = match url::Url::parse(request.url) {
            Ok(url) => url,
            Err(e) => return failed(format!("the URL cannot be used: {e}")),
        };
        if url.scheme() != "https" && !(url.scheme() == "http" && self.allow_http) {
            return failed(format!("{}:// endpoints are not allowed", url.scheme()));
        }
        if let Some(reason) = self.guard.url_refusal(&url) {
            return failed(format!(
                "address refused: {} is {reason}",
                url.host_str().unwrap_or("")
            ));
        }
        let signature = match sign(&request) {
            Ok(signature) => signature,
            Err(e) => return failed(format!("signing: {e}")),
        };
        let sent = self
            .client
            .post(url)
            .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
            .header(
                USER_AGENT,
                HeaderValue::from_static("SupportDesk-Webhooks/1"),
            )
            .header("webhook-id", request.event_id)
            .header("webhook-timestamp", request.timestamp.to_string())
            .header("webhook-signature", signature)
            .body(request.body)
            .send()
            .await;
        let mut response = match sent {
            Ok(response) => response,
            Err(e) => return failed(describe(e)),
        };
        let status = response.status();
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let mut excerpt = Vec::new();
        while excerpt.len() < EXCERPT_BYTES {
            match response.chunk().await {
                Ok(Some(chunk)) => excerpt.extend_from_slice(&chunk),
                Ok(None) | Err(_) => break,
            }
        }
        excerpt.truncate(EXCERPT_BYTES);
        let latency = started.elapsed();
        let error = (!status.is_success()).then(|| format!("the receiver answered {status}"));
        Answer {
            status: Some(status.as_u16()),
            latency,
            excerpt: (!excerpt.is_empty()).then(|| text_column(&String::from_utf8_lossy(&excerpt))),
            retry_after,
            error,
        }
    }
}

/// `v1,<signature>` for each secret, space-separated.
fn sign(request: &Request<'_>) -> anyhow::Result<String> {
    let mut signatures = Vec::with_capacity(request.secrets.len());
    for secret in request.secrets {
        let webhook = standardwebhooks::Webhook::from_bytes(secret.clone())?;
        signatures.push(webhook.sign(
            request.event_id,
            request.timestamp,
            request.body.as_bytes(),
        )?);
    }
    Ok(signatures.join(" "))
}

/// `text` as a PostgreSQL `text` value can hold it: without NUL characters, which it refuses
/// (a receiver may answer with any bytes).
fn text_column(text: &str) -> String {
    text.replace('\0', "")
}

/// A request error in words, with its causes (where the address guard's refusal is), without
/// the endpoint's URL (which may carry a token: it stays out of logs and attempts).
fn describe(error: reqwest::Error) -> String {
    if error.is_timeout() {
        return format!("no answer within {} s", TIMEOUT.as_secs());
    }
    let error = error.without_url();
    let mut text = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text_column(&text)
}

/// Resolves with the system's resolver, keeping only the addresses the guard allows.
struct GuardedResolver {
    guard: AddressGuard,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let guard = self.guard.clone();
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let mut refused = None;
            let allowed: Vec<SocketAddr> = found
                .into_iter()
                .filter(|addr| match guard.refusal(addr.ip()) {
                    Some(reason) => {
                        refused = Some(reason);
                        false
                    }
                    None => true,
                })
                .collect();
            if allowed.is_empty() {
                let reason = refused.unwrap_or("no address");
                return Err(format!("address refused: {host} resolves to {reason}").into());
            }
            let addrs: Addrs = Box::new(allowed.into_iter());
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Standard Webhooks specification's own example.
    #[test]
    fn signatures_are_the_specifications() {
        use base64::Engine;
        let secret = base64::engine::general_purpose::STANDARD
            .decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
            .unwrap();
        let request = Request {
            url: "https://example.com",
            event_id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
            timestamp: 1_614_265_330,
            body: r#"{"test": 2432232314}"#.to_owned(),
            secrets: &[secret],
        };
        assert_eq!(
            sign(&request).unwrap(),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }
}
