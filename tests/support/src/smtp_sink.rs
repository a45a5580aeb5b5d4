//! A small SMTP server that accepts mail into memory: a real SMTP peer for the worker's
//! lettre transport, with switches for the failures delivery must survive.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// One accepted message.
#[derive(Debug, Clone)]
pub struct Received {
    pub mail_from: String,
    pub rcpt_to: Vec<String>,
    pub raw: Vec<u8>,
    /// Who logged in (`AUTH PLAIN`) before sending it, if anyone.
    pub login: Option<String>,
}

impl Received {
    pub fn parsed(&self) -> mail_parser::Message<'_> {
        mail_parser::MessageParser::default()
            .parse(&self.raw)
            .expect("a parseable message")
    }

    pub fn subject(&self) -> String {
        self.parsed().subject().unwrap_or_default().to_owned()
    }

    pub fn message_id(&self) -> String {
        self.parsed().message_id().unwrap_or_default().to_owned()
    }

    pub fn text(&self) -> String {
        self.parsed()
            .body_text(0)
            .map(std::borrow::Cow::into_owned)
            .unwrap_or_default()
    }

    pub fn html(&self) -> String {
        self.parsed()
            .body_html(0)
            .map(std::borrow::Cow::into_owned)
            .unwrap_or_default()
    }

    /// The value of `?token=` in the first link to `path` in the text part.
    pub fn token_in_link(&self, path: &str) -> Option<String> {
        let text = self.text();
        let start = text.find(&format!("{path}?token="))? + path.len() + "?token=".len();
        Some(
            text[start..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect(),
        )
    }
}

#[derive(Default)]
struct Behaviour {
    /// Answer `451` to MAIL FROM (a transient refusal).
    refuse_transiently: bool,
    /// Answer `550` to RCPT TO for these addresses (a permanent refusal).
    reject_recipients: Vec<String>,
    /// Wait this long before answering the end of DATA.
    data_delay: Duration,
    /// Offer `AUTH PLAIN` and take mail only after a login with this user and password.
    login: Option<(String, String)>,
}

#[derive(Clone)]
pub struct SmtpSink {
    pub port: u16,
    received: Arc<Mutex<Vec<Received>>>,
    behaviour: Arc<Mutex<Behaviour>>,
    data_started: Arc<std::sync::atomic::AtomicUsize>,
}

impl SmtpSink {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind SMTP sink");
        let sink = Self {
            port: listener.local_addr().expect("addr").port(),
            received: Arc::default(),
            behaviour: Arc::default(),
            data_started: Arc::default(),
        };
        let server = sink.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let server = server.clone();
                tokio::spawn(async move {
                    let _ = server.session(socket).await;
                });
            }
        });
        sink
    }

    /// `SMTP_URL` for this sink (plain SMTP, no authentication).
    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    pub fn refuse_transiently(&self, refuse: bool) {
        self.behaviour.lock().unwrap().refuse_transiently = refuse;
    }

    pub fn reject_recipient(&self, address: &str) {
        self.behaviour
            .lock()
            .unwrap()
            .reject_recipients
            .push(address.to_lowercase());
    }

    pub fn accept_everyone(&self) {
        let mut behaviour = self.behaviour.lock().unwrap();
        behaviour.reject_recipients.clear();
        behaviour.refuse_transiently = false;
    }

    /// Takes mail only from a client that logs in (`AUTH PLAIN`) as `user` with `password`,
    /// as a provider's submission server does.
    pub fn require_login(&self, user: &str, password: &str) {
        self.behaviour.lock().unwrap().login = Some((user.to_owned(), password.to_owned()));
    }

    pub fn delay_data(&self, delay: Duration) {
        self.behaviour.lock().unwrap().data_delay = delay;
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// How many DATA transfers have begun (accepted or not).
    pub fn data_started(&self) -> usize {
        self.data_started.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Waits until `count` messages have arrived, or panics after `timeout`.
    pub async fn wait_for(&self, count: usize, timeout: Duration) -> Vec<Received> {
        let deadline = Instant::now() + timeout;
        loop {
            let received = self.received();
            if received.len() >= count {
                return received;
            }
            assert!(
                Instant::now() < deadline,
                "expected {count} messages within {timeout:?}, got {}",
                received.len()
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    async fn session(&self, socket: TcpStream) -> std::io::Result<()> {
        let (read, mut write) = socket.into_split();
        let mut lines = BufReader::new(read);
        write.write_all(b"220 sink.test ESMTP ready\r\n").await?;
        let mut mail_from = String::new();
        let mut rcpt_to = Vec::new();
        let mut login: Option<String> = None;
        let mut line = String::new();
        loop {
            line.clear();
            if lines.read_line(&mut line).await? == 0 {
                return Ok(());
            }
            let command = line.trim_end().to_owned();
            let verb = command
                .split([' ', ':'])
                .next()
                .unwrap_or("")
                .to_ascii_uppercase();
            let required = self.behaviour.lock().unwrap().login.clone();
            let reply: &[u8] = match verb.as_str() {
                "EHLO" if required.is_some() => {
                    b"250-sink.test\r\n250-8BITMIME\r\n250-AUTH PLAIN\r\n250 SMTPUTF8\r\n"
                }
                "EHLO" => b"250-sink.test\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n",
                "HELO" => b"250 sink.test\r\n",
                "AUTH" => {
                    let given = command
                        .split_whitespace()
                        .nth(2)
                        .and_then(|b64| {
                            use base64::Engine;
                            base64::engine::general_purpose::STANDARD.decode(b64).ok()
                        })
                        .map(|plain| String::from_utf8_lossy(&plain).into_owned());
                    // PLAIN: authorisation id, user and password, NUL-separated.
                    let parts: Option<(String, String)> = given.and_then(|g| {
                        let mut fields = g.split('\0').skip(1);
                        Some((fields.next()?.to_owned(), fields.next()?.to_owned()))
                    });
                    match (&required, parts) {
                        (Some(expected), Some(given)) if *expected == given => {
                            login = Some(given.0);
                            b"235 2.7.0 authentication succeeded\r\n"
                        }
                        _ => b"535 5.7.8 authentication credentials invalid\r\n",
                    }
                }
                "MAIL" if required.is_some() && login.is_none() => {
                    b"530 5.7.0 authentication required\r\n"
                }
                "MAIL" => {
                    if self.behaviour.lock().unwrap().refuse_transiently {
                        b"451 4.3.0 try again later\r\n"
                    } else {
                        mail_from = address(&command);
                        rcpt_to.clear();
                        b"250 2.1.0 OK\r\n"
                    }
                }
                "RCPT" => {
                    let to = address(&command);
                    if self
                        .behaviour
                        .lock()
                        .unwrap()
                        .reject_recipients
                        .contains(&to)
                    {
                        b"550 5.1.1 no such mailbox\r\n"
                    } else {
                        rcpt_to.push(to);
                        b"250 2.1.5 OK\r\n"
                    }
                }
                "DATA" => {
                    write.write_all(b"354 end with <CRLF>.<CRLF>\r\n").await?;
                    self.data_started
                        .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let mut raw = Vec::new();
                    loop {
                        line.clear();
                        if lines.read_line(&mut line).await? == 0 {
                            return Ok(());
                        }
                        if line == ".\r\n" || line == ".\n" {
                            break;
                        }
                        let content = line.strip_prefix('.').unwrap_or(&line);
                        raw.extend_from_slice(content.as_bytes());
                    }
                    let delay = self.behaviour.lock().unwrap().data_delay;
                    tokio::time::sleep(delay).await;
                    self.received.lock().unwrap().push(Received {
                        mail_from: mail_from.clone(),
                        rcpt_to: std::mem::take(&mut rcpt_to),
                        raw,
                        login: login.clone(),
                    });
                    b"250 2.0.0 queued\r\n"
                }
                "RSET" => {
                    rcpt_to.clear();
                    b"250 2.0.0 OK\r\n"
                }
                "NOOP" => b"250 2.0.0 OK\r\n",
                "QUIT" => {
                    write.write_all(b"221 2.0.0 bye\r\n").await?;
                    return Ok(());
                }
                _ => b"502 5.5.2 command not implemented\r\n",
            };
            write.write_all(reply).await?;
        }
    }
}

fn address(command: &str) -> String {
    command
        .split_once('<')
        .and_then(|(_, rest)| rest.split_once('>'))
        .map(|(addr, _)| addr.to_lowercase())
        .unwrap_or_default()
}
