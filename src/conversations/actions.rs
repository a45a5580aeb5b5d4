//! What agents do to conversations, once: the REST routes and the chat hub's methods both
//! call these, so both check, write and record the same way. Each records its events in the
//! event log in the transaction of its change, and hands them to subscribers (the hub) after
//! the commit.

use uuid::Uuid;

use crate::authz::Actor;
use crate::conversations::messages::{self, MemberMessage, Message, MessageKind};
use crate::conversations::rating_links;
use crate::conversations::record::{
    self, Change, Channel, Conversation, ConversationStatus, Reader,
};
use crate::conversations::requests::{NewConversation, NewMessage};
use crate::error::{Error, Result};
use crate::events;
use crate::events::catalogue::{
    ActorKind, Author, ConversationChange, ConversationChanged, DomainEvent, EventActor,
    MessageCreated, Recorded,
};
use crate::events::log::Appended;
use crate::inbox::assignee::{acting_agent, acting_author, ensure_assignable};
use crate::inbox::contacts;
use crate::notifications;
use crate::state::AppState;
use crate::tenancy::context::{Tenant, TenantTx};

/// Adds the acting agent's reply (`Outgoing`) or private note (`Note`) to a conversation.
///
/// A short transaction (`notifications::add_by_member`): on PostgreSQL, a reply to a chat
/// is BEGIN, the conversation with its author, the message with its event, and COMMIT,
/// since each round trip is a wake-up of the API and of its backend, and on a machine whose
/// cores are busy with other work each wake-up waits for a core, which is what the chat
/// hub's `SendMessage` round trip measures.
pub async fn post_message(
    state: &AppState,
    actor: Actor,
    conversation_id: Uuid,
    message: NewMessage,
    kind: MessageKind,
) -> Result<Message> {
    let workspace_id = actor.workspace_id;
    let user_id = actor.member_id()?;
    if kind != MessageKind::Outgoing && message.recipients.chosen() {
        return Err(Error::invalid_field(
            "to",
            "only a reply is emailed: a note has no recipients",
        ));
    }
    let event_id = Uuid::now_v7();
    let posted = notifications::add_by_member(
        state,
        &actor.schema,
        &MemberMessage {
            conversation_id,
            kind,
            body: &message.body,
            attachment_ids: &message.attachment_ids,
            recipients: &message.recipients,
        },
        user_id,
        event_id,
    )
    .await?;
    let Some(posted) = posted else {
        // Nothing written: no such conversation (404), unless the member has no profile,
        // which `acting_author` reports as before, or the files are not this
        // conversation's to send.
        let mut tenant = Tenant::acquire(state, actor.clone()).await?;
        let (conn, schema) = tenant.parts();
        acting_author(&mut *conn, schema, &actor).await?;
        if !message.attachment_ids.is_empty()
            && record::exists(conn, schema, conversation_id).await?
        {
            return Err(Error::invalid_field(
                "attachmentIds",
                "names a file that is not this conversation's, or was sent already",
            ));
        }
        return Err(Error::NotFound("conversation"));
    };
    let message = posted.added.message;
    let (claims, agent_id) = (posted.claims, posted.agent_id);
    let appended = match posted.event_seq {
        Some(seq) => Appended::Numbered(vec![Recorded {
            id: event_id,
            seq,
            occurred_at: posted.event_occurred_at,
            actor: EventActor {
                kind: ActorKind::Agent,
                id: Some(posted.agent_id),
            },
            event: DomainEvent::MessageCreated(Box::new(MessageCreated {
                conversation_id,
                contact_id: posted.added.contact_id,
                message: message.clone(),
                author: Some(Author {
                    display_name: posted.author_display_name,
                    avatar_url: posted.author_avatar_url,
                }),
            })),
        }]),
        None => Appended::Waiting(actor.schema.clone()),
    };
    state.events.committed(workspace_id, appended);
    if claims {
        // The reply is in: a failure to assign must not report it as failed.
        if let Err(err) = claim(state, actor, conversation_id, agent_id).await {
            tracing::warn!(error = %err, %conversation_id, "assigning on reply failed");
        }
    }
    Ok(message)
}

/// Assigns an unassigned conversation to the agent who just replied to it (the workspace's
/// `autoAssignOnReply`), unless someone was assigned meanwhile.
async fn claim(
    state: &AppState,
    actor: Actor,
    conversation_id: Uuid,
    agent_id: Uuid,
) -> Result<()> {
    let mut tenant = TenantTx::begin(state, actor).await?;
    let (conn, schema) = tenant.parts();
    // Holds off a concurrent deactivation of the author until this assignment is visible.
    ensure_assignable(&mut *conn, schema, agent_id, "assigneeId").await?;
    let Some(conversation) =
        record::assign_if_unassigned(conn, schema, conversation_id, agent_id).await?
    else {
        return Ok(());
    };
    let updated = DomainEvent::ConversationUpdated(Box::new(ConversationChanged {
        change: ConversationChange::Assignee,
        conversation,
    }));
    events::record(state, tenant, vec![updated]).await?;
    Ok(())
}

/// Starts a conversation with a contact: the agent's first message, assigned to them.
pub async fn start(state: &AppState, actor: Actor, new: NewConversation) -> Result<Conversation> {
    let mut tenant = TenantTx::begin(state, actor.clone()).await?;
    let (conn, schema) = tenant.parts();
    let (agent_id, author) = acting_author(&mut *conn, schema, &actor).await?;
    // Holds off a concurrent deactivation of the starter until this assignment is visible.
    ensure_assignable(&mut *conn, schema, agent_id, "assigneeId").await?;
    let contact = contacts::upsert(&mut *conn, schema, &new.contact).await?;
    let id = record::insert(
        &mut *conn,
        schema,
        contact.contact.id,
        new.subject.as_deref(),
        Some(agent_id),
        Channel::Manual,
    )
    .await?;
    let first = MessageKind::Outgoing;
    let added = messages::add(&mut *conn, schema, id, first, &new.body, Some(agent_id))
        .await?
        .ok_or_else(|| Error::Internal(anyhow::anyhow!("conversation {id} vanished")))?;
    notifications::conversation_started(conn, schema, id, added.message.id, actor.member_id().ok())
        .await?;
    let conversation = record::find(conn, schema, id, Reader(None))
        .await?
        .ok_or_else(|| Error::Internal(anyhow::anyhow!("conversation {id} vanished")))?;
    let mut recorded: Vec<DomainEvent> = DomainEvent::contact_upserted(&contact)
        .into_iter()
        .collect();
    recorded.push(DomainEvent::ConversationCreated(Box::new(
        conversation.clone(),
    )));
    recorded.push(DomainEvent::MessageCreated(Box::new(MessageCreated {
        conversation_id: id,
        contact_id: added.contact_id,
        message: added.message,
        author: Some(author),
    })));
    events::record(state, tenant, recorded).await?;
    Ok(conversation)
}

/// Changes a conversation's assignee, status or priority.
pub async fn change(
    state: &AppState,
    actor: Actor,
    conversation_id: Uuid,
    change: Change,
) -> Result<Conversation> {
    let mut tenant = TenantTx::begin(state, actor).await?;
    let (conn, schema) = tenant.parts();
    if let Change::Assignee(Some(agent_id)) = change {
        ensure_assignable(&mut *conn, schema, agent_id, "assigneeId").await?;
    }
    let conversation = record::update(&mut *conn, schema, conversation_id, change)
        .await?
        .ok_or(Error::NotFound("conversation"))?;
    if matches!(change, Change::Status(ConversationStatus::Resolved)) {
        let workspace_id = tenant.actor.workspace_id;
        let (conn, schema) = tenant.parts();
        rating_links::request(
            conn,
            schema,
            &state.email_tokens,
            workspace_id,
            &conversation,
        )
        .await?;
    }
    notifications::changed(&mut tenant, conversation_id, change).await?;
    let updated = DomainEvent::ConversationUpdated(Box::new(ConversationChanged {
        change: match change {
            Change::Status(_) => ConversationChange::Status,
            Change::Assignee(_) => ConversationChange::Assignee,
            Change::Priority(_) => ConversationChange::Priority,
        },
        conversation: conversation.clone(),
    }));
    events::record(state, tenant, vec![updated]).await?;
    Ok(conversation)
}

/// Whether the conversation exists in the actor's workspace (the hub's joins and typing).
pub async fn exists(state: &AppState, actor: Actor, conversation_id: Uuid) -> Result<bool> {
    let mut tenant = crate::tenancy::context::Tenant::acquire(state, actor).await?;
    let (conn, schema) = tenant.parts();
    Ok(record::exists(conn, schema, conversation_id).await?)
}

/// Who types where: the acting agent as shown, and the conversation's contact (whose widget
/// hears it).
pub struct Typist {
    pub agent_id: Uuid,
    pub author: Author,
    pub contact_id: Uuid,
}

/// How the acting agent is shown typing in a conversation; `None` when the workspace has no
/// such conversation. One pooled connection for both reads.
pub async fn typist(
    state: &AppState,
    actor: Actor,
    conversation_id: Uuid,
) -> Result<Option<Typist>> {
    let mut tenant = crate::tenancy::context::Tenant::acquire(state, actor.clone()).await?;
    let (conn, schema) = tenant.parts();
    let Some(contact_id) = record::contact_of(&mut *conn, schema, conversation_id).await? else {
        return Ok(None);
    };
    let (agent_id, author) = acting_author(conn, schema, &actor).await?;
    Ok(Some(Typist {
        agent_id,
        author,
        contact_id,
    }))
}

/// The acting member's agent id (the chat hub binds a connection to it).
pub async fn agent_id(state: &AppState, actor: Actor) -> Result<Uuid> {
    let mut tenant = crate::tenancy::context::Tenant::acquire(state, actor.clone()).await?;
    let (conn, schema) = tenant.parts();
    acting_agent(conn, schema, &actor).await
}
