//! Passwords: the spec's rule as a type, and argon2id hashing that never blocks the runtime.
//!
//! Hashing costs ~19 MiB and tens of milliseconds of one core, by design. It runs on the
//! blocking pool behind a semaphore sized below the core count, so a flood of logins queues
//! for hashing instead of starving every other request of CPU. The permit travels into the
//! blocking task: a client that disconnects mid-login cannot free its slot early.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::Context;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher as _, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use secrecy::{ExposeSecret, SecretString};
use tokio::sync::Semaphore;

use crate::error::Error;

/// How long a request waits for a hashing slot before it is told to come back later: under a
/// flood, a fast 503 beats a queue that grows without bound.
const QUEUE_TIMEOUT: Duration = Duration::from_secs(10);

/// A password that satisfies the rule: at least 8 characters, with an upper-case letter, a
/// lower-case letter and a digit.
pub struct Password(SecretString);

impl Password {
    pub const MIN_CHARS: usize = 8;

    /// Every rule the candidate breaks, so the client can fix them all at once.
    pub fn parse(candidate: String) -> Result<Self, Vec<String>> {
        let mut problems = Vec::new();
        if candidate.chars().count() < Self::MIN_CHARS {
            problems.push(format!("must be at least {} characters", Self::MIN_CHARS));
        }
        if !candidate.chars().any(char::is_uppercase) {
            problems.push("must contain an upper-case letter".to_owned());
        }
        if !candidate.chars().any(char::is_lowercase) {
            problems.push("must contain a lower-case letter".to_owned());
        }
        if !candidate.chars().any(|c| c.is_ascii_digit()) {
            problems.push("must contain a digit".to_owned());
        }
        if problems.is_empty() {
            Ok(Self(SecretString::from(candidate)))
        } else {
            Err(problems)
        }
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(<redacted>)")
    }
}

/// argon2id with the OWASP-recommended parameters: m=19 MiB, t=2, p=1.
fn argon2() -> Argon2<'static> {
    // These constants are valid by construction; Params::new only rejects out-of-range values.
    let params = Params::new(19 * 1024, 2, 1, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

#[derive(Clone)]
pub struct PasswordHasher {
    permits: Arc<Semaphore>,
    operations: Arc<AtomicU64>,
    /// Verified against when the email is unknown, so that path costs the same.
    dummy_hash: Arc<str>,
}

impl PasswordHasher {
    pub fn new(concurrency: usize) -> anyhow::Result<Self> {
        let dummy = SaltString::generate(&mut OsRng);
        let dummy_hash = argon2()
            .hash_password(dummy.as_str().as_bytes(), &SaltString::generate(&mut OsRng))
            .map_err(|e| anyhow::anyhow!("argon2: {e}"))?
            .to_string();
        Ok(Self {
            permits: Arc::new(Semaphore::new(concurrency.max(1))),
            operations: Arc::default(),
            dummy_hash: dummy_hash.into(),
        })
    }

    pub async fn hash(&self, password: &Password) -> Result<String, Error> {
        let secret = password.0.clone();
        self.run(move || {
            argon2()
                .hash_password(
                    secret.expose_secret().as_bytes(),
                    &SaltString::generate(&mut OsRng),
                )
                .map(|hash| hash.to_string())
                .map_err(|e| anyhow::anyhow!("argon2: {e}"))
        })
        .await
    }

    /// Whether `candidate` matches `stored`; with no stored hash, pays for one verify anyway
    /// and answers false.
    pub async fn verify(&self, candidate: String, stored: Option<String>) -> Result<bool, Error> {
        let known = stored.is_some();
        let stored = stored.unwrap_or_else(|| self.dummy_hash.to_string());
        let candidate = SecretString::from(candidate);
        let matches = self
            .run(move || {
                let parsed =
                    PasswordHash::new(&stored).map_err(|e| anyhow::anyhow!("stored hash: {e}"))?;
                Ok(argon2()
                    .verify_password(candidate.expose_secret().as_bytes(), &parsed)
                    .is_ok())
            })
            .await?;
        Ok(known && matches)
    }

    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> anyhow::Result<T> + Send + 'static,
    ) -> Result<T, Error> {
        let permit = tokio::time::timeout(QUEUE_TIMEOUT, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| Error::Unavailable("too many sign-ins at once; try again shortly"))?
            .context("password hasher closed")?;
        self.operations.fetch_add(1, Ordering::Relaxed);
        let result = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            work()
        })
        .await
        .context("password hashing task failed")??;
        Ok(result)
    }

    /// How many hashes and verifies this hasher has run (tests use it to prove that a login
    /// for an unknown email still pays for one).
    pub fn operations(&self) -> u64 {
        self.operations.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(candidate: &str) -> Vec<String> {
        Password::parse(candidate.to_owned())
            .err()
            .unwrap_or_default()
    }

    #[test]
    fn accepts_a_password_meeting_every_rule() {
        assert!(Password::parse("Passw0rd".into()).is_ok());
        assert!(Password::parse("ÄbcdefG1".into()).is_ok());
    }

    #[test]
    fn names_each_broken_rule() {
        assert_eq!(problems("Pass0rd"), ["must be at least 8 characters"]);
        assert_eq!(problems("password1"), ["must contain an upper-case letter"]);
        assert_eq!(problems("PASSWORD1"), ["must contain a lower-case letter"]);
        assert_eq!(problems("Passwordd"), ["must contain a digit"]);
        assert_eq!(problems("").len(), 4);
    }

    #[test]
    fn length_counts_characters_not_bytes() {
        // Seven characters, more than eight bytes.
        assert_eq!(problems("Ääääää1"), ["must be at least 8 characters"]);
    }

    #[test]
    fn debug_hides_the_secret() {
        let password = Password::parse("Sup3rSecret".into()).unwrap();
        assert!(!format!("{password:?}").contains("Sup3r"));
    }

    #[tokio::test]
    async fn hash_then_verify_round_trips() {
        let hasher = PasswordHasher::new(1).unwrap();
        let password = Password::parse("Corr3ctHorse".into()).unwrap();
        let hash = hasher.hash(&password).await.unwrap();
        assert!(hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(
            hasher
                .verify("Corr3ctHorse".into(), Some(hash.clone()))
                .await
                .unwrap()
        );
        assert!(
            !hasher
                .verify("corr3ctHorse".into(), Some(hash))
                .await
                .unwrap()
        );
        assert!(!hasher.verify("Corr3ctHorse".into(), None).await.unwrap());
    }
}
