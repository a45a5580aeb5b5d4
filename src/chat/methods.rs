//! The hub methods agents and widget visitors call. Each re-checks the caller exactly as a
//! REST request does (an agent's membership: active, same role, live workspace, token not
//! revoked; a visitor's workspace: live), then calls the same action as the REST route it
//! mirrors, so permissions, validation, limits and tenant isolation are the REST route's own.
//! Method names match case-insensitively, as ASP.NET's hubs do. Arguments follow REST's
//! text rule too: text holding U+0000 is refused before any method runs, naming the
//! argument, as `AppJson` refuses it in a body.

use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use uuid::Uuid;

use crate::authz::{Actor, Permission, current_member};
use crate::conversations::actions;
use crate::conversations::messages::MessageKind;
use crate::conversations::requests::NewMessage;
use crate::error::Error;
use crate::hub::events::Event;
use crate::hub::registry::{AgentIdentity, CloseReason, Participant, VisitorIdentity};
use crate::state::AppState;
use crate::widget;

/// Who is calling, on which connection.
pub struct Caller {
    pub who: Participant,
    pub connection: u64,
}

/// Why a call did not succeed.
#[derive(Debug)]
pub enum Failure {
    /// Answered to the caller, the connection stays.
    Refused(String),
    /// The caller may no longer use this connection: it closes.
    Ended(CloseReason),
}

impl Failure {
    /// What the Completion's `error` says: safe to show, never internals.
    pub fn message(&self) -> String {
        match self {
            Self::Refused(message) => message.clone(),
            Self::Ended(reason) => reason.error.clone().unwrap_or_default(),
        }
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Self::Refused(error.into_detail())
    }
}

/// A method's result; `None` for methods that return nothing (their Completion carries no
/// result at all).
type Outcome = Result<Option<Value>, Failure>;

pub async fn invoke(
    state: &AppState,
    caller: &Caller,
    target: &str,
    arguments: &[Box<RawValue>],
) -> Outcome {
    match &caller.who {
        Participant::Agent(agent) => {
            invoke_as_agent(state, agent, caller.connection, target, arguments).await
        }
        Participant::Visitor(visitor) => invoke_as_visitor(state, visitor, target, arguments).await,
    }
}

/// A visitor's methods: `SendMessage(body)` and `Typing(isTyping)`, on their own
/// conversation only.
async fn invoke_as_visitor(
    state: &AppState,
    who: &VisitorIdentity,
    target: &str,
    arguments: &[Box<RawValue>],
) -> Outcome {
    let method = target.to_ascii_lowercase();
    if !["sendmessage", "typing"].contains(&method.as_str()) {
        return Err(Failure::Refused(format!("Unknown hub method '{target}'")));
    }
    let visitor = match widget::visitor::Visitor::of_connection(state, who).await {
        Ok(visitor) => visitor,
        Err(error @ (Error::Forbidden { .. } | Error::Unauthorized(_))) => {
            return Err(Failure::Ended(CloseReason::ended(&error.into_detail())));
        }
        Err(error) => return Err(error.into()),
    };
    if method == "sendmessage" {
        let (body,): (String,) = arguments_of(target, "(body)", arguments)?;
        let posted = widget::actions::post(state, &visitor, &body).await?;
        Ok(Some(serde_json::to_value(posted).unwrap_or(Value::Null)))
    } else {
        let (is_typing,): (bool,) = arguments_of(target, "(isTyping)", arguments)?;
        widget::actions::typing(state, &visitor, is_typing).await?;
        Ok(None)
    }
}

async fn invoke_as_agent(
    state: &AppState,
    agent: &AgentIdentity,
    connection: u64,
    target: &str,
    arguments: &[Box<RawValue>],
) -> Outcome {
    let method = target.to_ascii_lowercase();
    let known = [
        "sendmessage",
        "sendnote",
        "typing",
        "joinconversation",
        "leaveconversation",
    ];
    if !known.contains(&method.as_str()) {
        return Err(Failure::Refused(format!("Unknown hub method '{target}'")));
    }
    let actor = member(state, agent).await?;
    let usage = match method.as_str() {
        "sendmessage" | "sendnote" => "(conversationId, body)",
        "typing" => "(conversationId, isTyping)",
        _ => "(conversationId)",
    };
    match method.as_str() {
        "sendmessage" | "sendnote" => {
            let (conversation_id, body): (Uuid, String) = arguments_of(target, usage, arguments)?;
            let kind = if method == "sendnote" {
                MessageKind::Note
            } else {
                MessageKind::Outgoing
            };
            let message = NewMessage::parse(&body)?;
            let message =
                actions::post_message(state, actor, conversation_id, message, kind).await?;
            Ok(Some(serde_json::to_value(message).unwrap_or(Value::Null)))
        }
        "typing" => {
            let (conversation_id, is_typing): (Uuid, bool) =
                arguments_of(target, usage, arguments)?;
            let workspace_id = actor.workspace_id;
            let typist = actions::typist(state, actor, conversation_id)
                .await?
                .ok_or(Error::NotFound("conversation"))?;
            let event = Event::agent_typing(
                workspace_id,
                conversation_id,
                is_typing,
                (agent.user_id, typist.agent_id),
                &typist.author.display_name,
            );
            state.hub.emit(event.clone().for_visitor(typist.contact_id));
            state.hub.emit(event);
            Ok(None)
        }
        _ => {
            let (conversation_id,): (Uuid,) = arguments_of(target, usage, arguments)?;
            let joining = method == "joinconversation";
            if joining {
                found(actions::exists(state, actor.clone(), conversation_id).await?)?;
            }
            state
                .hub
                .registry
                .join(agent.workspace_id, connection, conversation_id, joining);
            Ok(None)
        }
    }
}

/// The caller as a REST request would be authorised now; a member who lost access ends the
/// connection.
async fn member(state: &AppState, agent: &AgentIdentity) -> Result<Actor, Failure> {
    let actor = match current_member(
        state,
        agent.user_id,
        agent.workspace_id,
        agent.token_version,
    )
    .await
    {
        Ok(actor) => actor,
        Err(error @ (Error::Forbidden { .. } | Error::Unauthorized(_))) => {
            return Err(Failure::Ended(CloseReason::ended(&error.into_detail())));
        }
        Err(error) => return Err(error.into()),
    };
    if actor.role() != agent.role {
        return Err(Failure::Ended(CloseReason::ended(
            "your role in this workspace changed; reconnect to continue",
        )));
    }
    if !actor.may(Permission::HandleConversations) {
        return Err(Failure::Refused("you may not handle conversations".into()));
    }
    Ok(actor)
}

fn found(exists: bool) -> Result<(), Failure> {
    if exists {
        Ok(())
    } else {
        Err(Error::NotFound("conversation").into())
    }
}

/// The call's arguments as a tuple of their types.
fn arguments_of<T: DeserializeOwned>(
    target: &str,
    usage: &str,
    arguments: &[Box<RawValue>],
) -> Result<T, Failure> {
    let joined = format!(
        "[{}]",
        arguments
            .iter()
            .map(|a| a.get())
            .collect::<Vec<_>>()
            .join(",")
    );
    let nul = crate::extract::nul_fields_in_json(joined.as_bytes());
    if !nul.is_empty() {
        let named: Vec<String> = nul
            .iter()
            .map(|field| {
                format!(
                    "'{target}' argument {field} {}",
                    crate::extract::NUL_MESSAGE
                )
            })
            .collect();
        return Err(Failure::Refused(named.join("; ")));
    }
    serde_json::from_str(&joined).map_err(|_| {
        Failure::Refused(format!(
            "'{target}' was called with the wrong arguments: {usage}"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(values: &[&str]) -> Vec<Box<RawValue>> {
        values
            .iter()
            .map(|v| RawValue::from_string((*v).to_owned()).unwrap())
            .collect()
    }

    #[test]
    fn arguments_bind_by_position_and_type() {
        let id = Uuid::new_v4();
        let (got, body): (Uuid, String) = arguments_of(
            "SendMessage",
            "(conversationId, body)",
            &raw(&[&format!("\"{id}\""), "\"hi\""]),
        )
        .unwrap();
        assert_eq!((got, body.as_str()), (id, "hi"));
    }

    #[test]
    fn wrong_arguments_say_what_the_method_takes() {
        for bad in [
            raw(&["\"not-a-uuid\"", "\"hi\""]),
            raw(&[&format!("\"{}\"", Uuid::nil())]),
            raw(&[&format!("\"{}\"", Uuid::nil()), "\"hi\"", "3"]),
        ] {
            let Err(failure) =
                arguments_of::<(Uuid, String)>("SendMessage", "(conversationId, body)", &bad)
            else {
                panic!("refused");
            };
            assert_eq!(
                failure.message(),
                "'SendMessage' was called with the wrong arguments: (conversationId, body)"
            );
        }
    }

    #[test]
    fn text_holding_nul_is_refused_naming_the_argument_as_rest_does() {
        let id = Uuid::new_v4();
        let Err(failure) = arguments_of::<(Uuid, String)>(
            "SendMessage",
            "(conversationId, body)",
            &raw(&[&format!("\"{id}\""), "\"a\\u0000b\""]),
        ) else {
            panic!("refused");
        };
        assert_eq!(
            failure.message(),
            "'SendMessage' argument [1] must not contain the NUL character (U+0000)"
        );
        let (_, body): (Uuid, String) = arguments_of(
            "SendMessage",
            "(conversationId, body)",
            &raw(&[&format!("\"{id}\""), "\"a\\\\u0000b\""]),
        )
        .expect("an escaped backslash before u0000 is text, not a NUL");
        assert_eq!(body, "a\\u0000b");
    }
}
