//! Passwords: the spec's rule as a type, and argon2id hashing that never blocks the runtime.
//!
//! Hashing costs ~19 MiB and tens of milliseconds of one core, by design. It runs on a few
//! threads of its own (as many as the hashing concurrency) behind a semaphore sized below the
//! core count, so a flood of logins queues for hashing instead of starving every other request
//! of CPU. The permit travels into the job: a client that disconnects mid-login cannot free
//! its slot early.
//!
//! Why not the blocking pool: the allocator keeps each thread's 19 MiB block for reuse once
//! the first one has been freed (glibc raises its mmap threshold past it), and the blocking
//! pool starts a fresh thread, with an arena of its own, whenever none is idle at that very
//! instant. A login flood left the API holding ~19 MiB per thread it had ever hashed on
//! (24 MiB grew to 250 MiB on 2 cores). A fixed pool of threads (rayon's) bounds that at
//! `concurrency x 19 MiB`, and each thread allocates its block once and reuses it (argon2's
//! `hash_password_into_with_memory`), which also spares every hash a 19 MiB allocation.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::Context;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
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

thread_local! {
    /// The calling (hashing) thread's argon2 memory: allocated by its first hash, reused by
    /// every later one, never handed back to the allocator.
    static BLOCKS: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
}

/// `argon2` of `password` and `salt` into `out`, in this thread's reused memory.
fn compute(
    argon2: &Argon2<'_>,
    password: &[u8],
    salt: &[u8],
    out: &mut [u8],
) -> anyhow::Result<()> {
    let count = argon2.params().block_count();
    BLOCKS
        .with_borrow_mut(|blocks| {
            if blocks.len() < count {
                blocks.resize(count, Block::default());
            }
            argon2.hash_password_into_with_memory(password, salt, out, &mut blocks[..count])
        })
        .map_err(|e| anyhow::anyhow!("argon2: {e}"))
}

/// A PHC string (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`) for `password`, as
/// `argon2::PasswordHasher::hash_password` makes it.
fn hash_in_place(password: &[u8]) -> anyhow::Result<String> {
    let argon2 = argon2();
    let salt = SaltString::generate(&mut OsRng);
    let mut salt_buf = [0u8; 64];
    let salt_bytes = salt
        .as_salt()
        .decode_b64(&mut salt_buf)
        .map_err(|e| anyhow::anyhow!("salt: {e}"))?;
    let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
    compute(&argon2, password, salt_bytes, &mut out)?;
    let phc = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(argon2.params()).map_err(|e| anyhow::anyhow!("{e}"))?,
        salt: Some(salt.as_salt()),
        hash: Some(Output::new(&out).map_err(|e| anyhow::anyhow!("{e}"))?),
    };
    Ok(phc.to_string())
}

/// Whether `password` matches the PHC string `stored`, with the parameters `stored` names
/// (as `argon2::PasswordVerifier::verify_password` decides it; constant-time comparison).
fn verify_in_place(password: &[u8], stored: &str) -> anyhow::Result<bool> {
    let parsed = PasswordHash::new(stored).map_err(|e| anyhow::anyhow!("stored hash: {e}"))?;
    let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
        anyhow::bail!("stored hash: no salt or no output");
    };
    let algorithm =
        Algorithm::try_from(parsed.algorithm).map_err(|e| anyhow::anyhow!("stored hash: {e}"))?;
    let version = parsed
        .version
        .map(Version::try_from)
        .transpose()
        .map_err(|e| anyhow::anyhow!("stored hash: {e}"))?
        .unwrap_or_default();
    let params = Params::try_from(&parsed).map_err(|e| anyhow::anyhow!("stored hash: {e}"))?;
    let mut salt_buf = [0u8; 64];
    let salt_bytes = salt
        .decode_b64(&mut salt_buf)
        .map_err(|e| anyhow::anyhow!("stored hash: {e}"))?;
    let mut out = vec![0u8; expected.len()];
    compute(
        &Argon2::new(algorithm, version, params),
        password,
        salt_bytes,
        &mut out,
    )?;
    // `Output`'s equality is constant-time.
    Ok(Output::new(&out).map_err(|e| anyhow::anyhow!("{e}"))? == expected)
}

#[derive(Clone)]
pub struct PasswordHasher {
    permits: Arc<Semaphore>,
    /// The hashing threads; they stop when the last clone of the hasher is dropped.
    threads: Arc<rayon::ThreadPool>,
    operations: Arc<AtomicU64>,
    /// Verified against when the email is unknown, so that path costs the same.
    dummy_hash: Arc<str>,
}

impl PasswordHasher {
    pub fn new(concurrency: usize) -> anyhow::Result<Self> {
        let concurrency = concurrency.max(1);
        let threads = rayon::ThreadPoolBuilder::new()
            .num_threads(concurrency)
            .thread_name(|i| format!("password-hash-{i}"))
            // A panicking job drops its result sender: its caller gets an error, the
            // process carries on (rayon's default is to abort).
            .panic_handler(|_| tracing::error!("a password hashing job panicked"))
            .build()
            .context("starting the password hashing threads")?;
        // Made on a hashing thread too, so no other thread keeps argon2 memory.
        let (done, dummy_hash) = std::sync::mpsc::channel();
        threads.spawn(move || {
            let dummy = SaltString::generate(&mut OsRng);
            let _ = done.send(hash_in_place(dummy.as_str().as_bytes()));
        });
        let dummy_hash = dummy_hash
            .recv()
            .context("password hashing thread failed")??;
        Ok(Self {
            permits: Arc::new(Semaphore::new(concurrency)),
            threads: Arc::new(threads),
            operations: Arc::default(),
            dummy_hash: dummy_hash.into(),
        })
    }

    pub async fn hash(&self, password: &Password) -> Result<String, Error> {
        let secret = password.0.clone();
        self.run(move || hash_in_place(secret.expose_secret().as_bytes()))
            .await
    }

    /// Whether `candidate` matches `stored`; with no stored hash, pays for one verify anyway
    /// and answers false.
    pub async fn verify(&self, candidate: String, stored: Option<String>) -> Result<bool, Error> {
        let known = stored.is_some();
        let stored = stored.unwrap_or_else(|| self.dummy_hash.to_string());
        let candidate = SecretString::from(candidate);
        let matches = self
            .run(move || verify_in_place(candidate.expose_secret().as_bytes(), &stored))
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
        let (done, result) = tokio::sync::oneshot::channel();
        self.threads.spawn(move || {
            let _permit = permit;
            let _ = done.send(work());
        });
        let result = result.await.context("password hashing task failed")??;
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

    #[test]
    fn hashes_agree_with_the_argon2_crate_both_ways() {
        use argon2::password_hash::{PasswordHasher as _, PasswordVerifier as _};
        let ours = hash_in_place(b"Corr3ctHorse").unwrap();
        assert!(ours.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        let parsed = PasswordHash::new(&ours).unwrap();
        assert!(argon2().verify_password(b"Corr3ctHorse", &parsed).is_ok());
        assert!(argon2().verify_password(b"corr3ctHorse", &parsed).is_err());

        let theirs = argon2()
            .hash_password(b"Corr3ctHorse", &SaltString::generate(&mut OsRng))
            .unwrap()
            .to_string();
        assert!(verify_in_place(b"Corr3ctHorse", &theirs).unwrap());
        assert!(!verify_in_place(b"Corr3ctHorsf", &theirs).unwrap());
        // Other parameters than ours are honoured (a hash made before a parameter change).
        let cheaper = Argon2::new(
            Algorithm::Argon2id,
            Version::V0x13,
            Params::new(8 * 1024, 1, 1, None).unwrap(),
        )
        .hash_password(b"Corr3ctHorse", &SaltString::generate(&mut OsRng))
        .unwrap()
        .to_string();
        assert!(verify_in_place(b"Corr3ctHorse", &cheaper).unwrap());
        assert!(verify_in_place(b"Corr3ctHorse", "not a hash").is_err());
    }

    #[tokio::test]
    async fn work_runs_on_the_hashers_own_threads() {
        let hasher = PasswordHasher::new(2).unwrap();
        for _ in 0..4 {
            let name = hasher
                .run(|| Ok(std::thread::current().name().map(str::to_owned)))
                .await
                .unwrap();
            assert!(name.unwrap().starts_with("password-hash-"));
        }
    }

    #[tokio::test]
    async fn a_panicking_job_is_an_error_and_hashing_carries_on() {
        let hasher = PasswordHasher::new(1).unwrap();
        let failed = hasher
            .run(|| -> anyhow::Result<()> { panic!("boom") })
            .await;
        assert!(failed.is_err());
        // The only thread survived, and the permit came back.
        assert_eq!(hasher.run(|| Ok(7)).await.unwrap(), 7);
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
