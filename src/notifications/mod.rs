//! Who is told about what, decided in the transaction of the change that caused it.
//!
//! - Agents get notices (assigned to them, a new conversation, the contact wrote again in a
//!   conversation assigned to them, a mention in a note), batched into one email per agent
//!   over at most two minutes (`notices`, `mentions`; the worker sends the digest).
//! - A widget visitor who left an address gets the replies they have not seen in the chat by
//!   email (`supportdesk_core::outbox::messages::visitor_reply`).
//!
//! The conversation actions call in here with one call each: [`assigned`],
//! [`conversation_started`], [`contact_wrote`], and [`add_by_member`] for agents' replies
//! and notes ([`write_by_member`] without the event).

pub mod mentions;
pub mod notices;

use sqlx::PgConnection;
use supportdesk_core::db::Engine;
use supportdesk_core::outbox::messages::agent_digest::NoticeKind;
use supportdesk_core::outbox::messages::visitor_reply;
use supportdesk_core::tenancy::TenantSchema;
use uuid::Uuid;

use crate::attachments::record as attachments;
use crate::conversations::messages::{self, MemberMessage, MessageKind, Posted, Written};
use crate::conversations::record::Change;
use crate::email_channel::outgoing;
use crate::error::{Error, Result};
use crate::state::AppState;
use crate::tenancy::context::TenantTx;
use mentions::Mentionable;
use notices::{Candidates, Notice};

/// Conversation `conversation_id` was assigned to agent `assignee` by member `by_user` (or an
/// API key): the assignee is told, unless they assigned it to themselves.
pub async fn assigned(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    conversation_id: Uuid,
    assignee: Uuid,
    by_user: Option<Uuid>,
) -> Result<()> {
    let notice = Notice {
        kind: NoticeKind::Assigned,
        conversation_id,
        message_id: None,
        by_user,
    };
    notices::notify(conn, schema, notice, Candidates::Agents(&[assignee])).await?;
    Ok(())
}

/// Conversation `conversation_id` changed as `change` says: a new assignee is told.
pub async fn changed(tenant: &mut TenantTx, conversation_id: Uuid, change: Change) -> Result<()> {
    let Change::Assignee(Some(assignee)) = change else {
        return Ok(());
    };
    let by_user = tenant.actor.member_id().ok();
    let (conn, schema) = tenant.parts();
    assigned(conn, schema, conversation_id, assignee, by_user).await
}

/// An agent (or an API key) started conversation `conversation_id` with message
/// `message_id`: every other agent who wants to hear of new conversations is told.
pub async fn conversation_started(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    conversation_id: Uuid,
    message_id: Uuid,
    by_user: Option<Uuid>,
) -> Result<()> {
    let notice = Notice {
        kind: NoticeKind::NewConversation,
        conversation_id,
        message_id: Some(message_id),
        by_user,
    };
    notices::notify(conn, schema, notice, Candidates::Everyone).await?;
    Ok(())
}

/// The contact wrote message `message_id` into conversation `conversation_id`, which it
/// `opened` or which was open: a new conversation is told to the agents who want to hear of
/// them, a message in an assigned one to its assignee.
pub async fn contact_wrote(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    conversation_id: Uuid,
    message_id: Uuid,
    opened: bool,
) -> Result<()> {
    let (kind, candidates) = if opened {
        (NoticeKind::NewConversation, Candidates::Everyone)
    } else {
        (NoticeKind::ContactReply, Candidates::Assignee)
    };
    let notice = Notice {
        kind,
        conversation_id,
        message_id: Some(message_id),
        by_user: None,
    };
    notices::notify(conn, schema, notice, candidates).await?;
    Ok(())
}

/// A member's reply or note ([`write_by_member`]) and its `message.created` event (id
/// `event_id`), in a transaction of their own. `None` when nothing was written (no such
/// conversation, no profile, or files that are not this conversation's to send).
pub async fn add_by_member(
    state: &AppState,
    schema: &TenantSchema,
    message: &MemberMessage<'_>,
    user_id: Uuid,
    event_id: Uuid,
) -> Result<Option<Posted>> {
    let engine = state.engine.get(&state.db).await?;
    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    let domain = &state.settings.inbound.domain;
    let Some(written) = write_by_member(&mut tx, schema, message, user_id, domain, engine).await?
    else {
        tx.rollback().await?;
        return Ok(None);
    };
    // Last: an event that takes the log's head holds it from its append to the commit.
    let posted = messages::record_created(&mut tx, schema, written, event_id, engine).await?;
    tx.commit().await?;
    Ok(Some(posted))
}

/// `messages::write_by_member`, with what the message sets off written in the caller's
/// transaction (which then records the event): a reply to a chat schedules the email of the
/// visitor's unseen replies when the visitor left an address, and a reply on an email
/// conversation goes out by email (its details on the message: `domain` is the workspace's
/// inbound mail domain); a note tells the agents it mentions. Everything a reply writes but
/// its event; the event log's benchmark measures the event against it. `None` when nothing
/// was written: the caller rolls back.
pub async fn write_by_member(
    tx: &mut PgConnection,
    schema: &TenantSchema,
    message: &MemberMessage<'_>,
    user_id: Uuid,
    domain: &str,
    engine: Engine,
) -> Result<Option<Written>> {
    let MemberMessage {
        conversation_id,
        kind,
        body,
        attachment_ids,
        recipients,
    } = *message;
    // The files first: a concurrent message taking one of them waits here, then finds it
    // taken, and writes nothing.
    if !attachment_ids.is_empty()
        && !attachments::lock_unsent_of_conversation(tx, schema, conversation_id, attachment_ids)
            .await?
    {
        return Ok(None);
    }
    let Some(mut written) = messages::write_by_member(tx, schema, message, user_id, engine).await?
    else {
        return Ok(None);
    };
    // After the conversation's row is locked (by the message's first statement), not before:
    // a delivery claiming this conversation's replies either waits for this commit (and sees
    // the reply) or has started already, which this next statement, with a snapshot taken
    // after that lock, sees and schedules the next email. Scheduled first, a reply could miss
    // both.
    let message_id = written.added.message.id;
    match kind {
        MessageKind::Outgoing if written.by_email => {
            messages::store(tx, schema, &mut written).await?;
            written.added.message.email =
                outgoing::schedule(tx, schema, conversation_id, message_id, domain, recipients)
                    .await?
                    .map(Box::new);
        }
        MessageKind::Outgoing if recipients.chosen() => {
            return Err(Error::invalid_field(
                "to",
                "only a reply on an email conversation has recipients",
            ));
        }
        MessageKind::Outgoing if written.chat_with_address => {
            visitor_reply::schedule(tx, schema, conversation_id).await?;
        }
        MessageKind::Note if body.contains('@') => {
            messages::store(tx, schema, &mut written).await?;
            mentioned(tx, schema, conversation_id, message_id, body, user_id).await?;
        }
        _ => {}
    }
    Ok(Some(written))
}

/// Tells the active agents note `message_id` mentions (its author never).
async fn mentioned(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    conversation_id: Uuid,
    message_id: Uuid,
    body: &str,
    by_user: Uuid,
) -> Result<()> {
    let agents: Vec<(Uuid, String)> = sqlx::query_as(
        schema.sql("SELECT id, display_name FROM {schema}.agent_profiles WHERE status = 'active'"),
    )
    .fetch_all(&mut *conn)
    .await?;
    let agents: Vec<Mentionable> = agents
        .into_iter()
        .map(|(agent_id, display_name)| Mentionable {
            agent_id,
            display_name,
        })
        .collect();
    let mentioned = mentions::mentioned(body, &agents);
    let notice = Notice {
        kind: NoticeKind::Mention,
        conversation_id,
        message_id: Some(message_id),
        by_user: Some(by_user),
    };
    notices::notify(conn, schema, notice, Candidates::Agents(&mentioned)).await?;
    Ok(())
}
