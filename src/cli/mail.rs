//! `supportdesk mail receive`: one received message on standard input, for an MTA's `pipe`
//! transport (Postfix's `pipe(8)`), handled as `POST /inbound/email` handles it. The exit code
//! is what the MTA acts on: 0 taken (or knowingly dropped), 67 (`EX_NOUSER`) no workspace has
//! the address, 65 (`EX_DATAERR`) a message refused for good, 75 (`EX_TEMPFAIL`) try later.

use std::io::Read;

use clap::Subcommand;
use supportdesk_core::config::Settings;

use crate::email_channel::{MAX_RAW_BYTES, receive};
use crate::error::Error;

#[derive(Debug, Subcommand)]
pub enum MailCommand {
    /// Receive one message (RFC 5322) from standard input.
    Receive {
        /// The envelope recipient (Postfix: `${original_recipient}`); the message's own
        /// headers are used when it is left out.
        #[arg(long, value_name = "ADDRESS")]
        recipient: Option<String>,
    },
}

const EX_DATAERR: i32 = 65;
const EX_NOUSER: i32 = 67;
const EX_TEMPFAIL: i32 = 75;

/// Runs the command; the process's exit code.
pub async fn run(settings: Settings, command: MailCommand) -> anyhow::Result<i32> {
    let MailCommand::Receive { recipient } = command;
    let mut raw = Vec::new();
    std::io::stdin()
        .take(MAX_RAW_BYTES as u64 + 1)
        .read_to_end(&mut raw)?;
    let state = crate::startup::app_state(settings)?;
    let received = receive::receive(&state, recipient.as_deref(), raw.into()).await;
    state.hub.flush().await;
    Ok(match received {
        Ok(receipt) => {
            println!("{}", serde_json::to_string(&receipt)?);
            0
        }
        Err(Error::NotFound(_)) => {
            eprintln!("no workspace has this forwarding address");
            EX_NOUSER
        }
        Err(e @ (Error::Body { .. } | Error::BadRequest { .. })) => {
            eprintln!("refused: {e}");
            EX_DATAERR
        }
        Err(e) => {
            eprintln!("not received, try again later: {e}");
            EX_TEMPFAIL
        }
    })
}
