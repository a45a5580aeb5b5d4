//! An IMAP server of the test's own: Debian's Dovecot (`dovecot-imapd`, installed by
//! `.ci/services.sh`'s `ensure_dovecot`) on a free loopback port, plain IMAP, one user with a
//! password from a `passwd-file` the test can rewrite (Dovecot reads it again when it changes),
//! and a Maildir the test delivers into by writing files into `new/`, as a local delivery
//! agent does; Dovecot notices them (and tells an IDLE client) by itself.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `DOVECOT`, else Debian's.
pub fn binary() -> PathBuf {
    std::env::var_os("DOVECOT")
        .filter(|p| !p.is_empty())
        .map_or_else(|| PathBuf::from("/usr/sbin/dovecot"), PathBuf::from)
}

pub struct Dovecot {
    pub port: u16,
    pub user: String,
    dir: PathBuf,
    child: Option<Child>,
}

impl Dovecot {
    /// Starts Dovecot for `user` with `password`, and waits until it greets.
    pub fn start(user: &str, password: &str) -> Self {
        let binary = binary();
        assert!(
            binary.is_file(),
            "Dovecot is not installed at {}: run `apt-get install dovecot-imapd` (.ci/test does it)",
            binary.display()
        );
        let port = crate::free_port();
        let dir = std::env::temp_dir().join(format!(
            "supportdesk-dovecot-{}",
            uuid::Uuid::new_v4().simple()
        ));
        for sub in ["run", "state", "mail"] {
            std::fs::create_dir_all(dir.join(sub)).expect("dovecot dirs");
        }
        // Dovecot serves mail as no root: as root, the mail belongs to its `dovecot` user.
        let mail_owner = if id(&["-u"]) == "0" {
            (id(&["-u", "dovecot"]), id(&["-g", "dovecot"]))
        } else {
            (id(&["-u"]), id(&["-g"]))
        };
        let config = format!(
            "protocols = imap\n\
             listen = 127.0.0.1\n\
             base_dir = {d}/run\n\
             state_dir = {d}/state\n\
             log_path = {d}/dovecot.log\n\
             ssl = no\n\
             disable_plaintext_auth = no\n\
             auth_mechanisms = plain login\n\
             first_valid_uid = 0\n\
             mail_location = maildir:{d}/mail/%u/Maildir\n\
             passdb {{\n  driver = passwd-file\n  args = scheme=PLAIN username_format=%u {d}/passwd\n}}\n\
             userdb {{\n  driver = static\n  args = uid={uid} gid={gid} home={d}/mail/%u\n}}\n\
             service imap-login {{\n  inet_listener imap {{\n    address = 127.0.0.1\n    port = {port}\n  }}\n  inet_listener imaps {{\n    port = 0\n  }}\n}}\n",
            d = dir.display(),
            uid = mail_owner.0,
            gid = mail_owner.1,
        );
        std::fs::write(dir.join("dovecot.conf"), config).expect("dovecot.conf");
        let server = Self {
            port,
            user: user.to_owned(),
            dir,
            child: None,
        };
        server.set_password(password);
        for sub in ["new", "cur", "tmp"] {
            std::fs::create_dir_all(server.maildir().join(sub)).expect("maildir");
        }
        let chowned = Command::new("chown")
            .arg("-R")
            .arg(format!("{}:{}", mail_owner.0, mail_owner.1))
            .arg(server.dir.join("mail"))
            .status()
            .is_ok_and(|s| s.success());
        assert!(chowned, "giving the mail directory to uid {}", mail_owner.0);
        let child = Command::new(&binary)
            .args(["-F", "-c"])
            .arg(server.dir.join("dovecot.conf"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start dovecot");
        let mut server = server;
        server.child = Some(child);
        server.wait_ready();
        server
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline {
            if let Ok(stream) = std::net::TcpStream::connect(("127.0.0.1", self.port)) {
                use std::io::Read;
                let mut greeting = [0u8; 64];
                let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
                if (&stream)
                    .read(&mut greeting)
                    .is_ok_and(|n| greeting[..n].starts_with(b"* OK"))
                {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("Dovecot did not start; its log: {}", self.log());
    }

    /// The user's password from now on.
    pub fn set_password(&self, password: &str) {
        std::fs::write(
            self.dir.join("passwd"),
            format!("{}:{{PLAIN}}{password}::::::\n", self.user),
        )
        .expect("passwd");
    }

    pub fn maildir(&self) -> PathBuf {
        self.dir.join("mail").join(&self.user).join("Maildir")
    }

    /// Delivers `raw` into the inbox, as a local delivery agent does (written to `tmp/`, then
    /// moved into `new/`).
    pub fn deliver(&self, raw: &[u8]) {
        let name = format!(
            "{}.{}.supportdesk-test",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_secs(),
            uuid::Uuid::new_v4().simple()
        );
        let tmp = self.maildir().join("tmp").join(&name);
        std::fs::write(&tmp, raw).expect("deliver");
        std::fs::rename(&tmp, self.maildir().join("new").join(&name)).expect("deliver");
    }

    /// How many messages the inbox holds (read or not): nothing is deleted by a reader.
    pub fn count(&self) -> usize {
        ["new", "cur"]
            .iter()
            .map(|d| std::fs::read_dir(self.maildir().join(d)).map_or(0, Iterator::count))
            .sum()
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("dovecot.log")).unwrap_or_default()
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// `id ARGS`: a user's or the current user's uid or gid.
fn id(args: &[&str]) -> String {
    Command::new("id")
        .args(args)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "0".to_owned())
}

impl Drop for Dovecot {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SIGTERM: the master stops its login and IMAP processes before it exits.
            let _ = Command::new("kill").arg(child.id().to_string()).status();
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline && matches!(child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
