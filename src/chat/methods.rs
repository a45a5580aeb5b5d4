//! The hub methods agents and widget visitors call. Each call is parsed once into a
//! [`Command`] (method names match case-insensitively, as ASP.NET's hubs do; arguments bind
//! by position and type), the caller is re-checked exactly as a REST request is (`access`),
//! and the command calls the same action as the REST route it mirrors, so permissions,
//! validation, limits and tenant isolation are the REST route's own. Arguments follow REST's
//! text rule too: text holding U+0000 is refused, naming the argument, as `AppJson` refuses
//! it in a body.
//!
//! What a caller is told keeps REST's order: an unknown method is refused at once, a caller
//! who lost access ends the connection before their arguments are looked at, and only then
//! are wrong arguments refused.

use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use uuid::Uuid;

use crate::authz::{Actor, Permission};
use crate::conversations::actions;
use crate::conversations::messages::MessageKind;
use crate::conversations::requests::NewMessage;
use crate::error::Error;
use crate::hub::events::Event;
use crate::hub::registry::{AgentIdentity, Kind, Participant, Scope};
use crate::state::AppState;
use crate::widget;
use crate::widget::visitor::Visitor;

use super::access::{self, Access, AccessLost};

/// Who is calling, on which connection.
pub struct Caller {
    who: Participant,
    connection: u64,
}

impl Caller {
    pub fn new(who: Participant, connection: u64) -> Self {
        Self { who, connection }
    }

    /// The caller's connection alone, to close it.
    pub fn scope(&self) -> Scope {
        Scope::Connection {
            workspace_id: self.who.workspace_id(),
            id: self.connection,
        }
    }
}

/// Why a call did not succeed.
#[derive(Debug)]
pub enum Failure {
    /// Answered to the caller, the connection stays.
    Refused(String),
    /// The caller may no longer use this connection: it closes.
    Ended(AccessLost),
}

impl Failure {
    /// What the Completion's `error` says: safe to show, never internals.
    pub fn message(&self) -> String {
        match self {
            Self::Refused(message) => message.clone(),
            Self::Ended(lost) => lost.error().to_owned(),
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

/// A hub method call, its arguments bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// An agent's reply to the contact: `SendMessage(conversationId, body)`.
    SendMessage { conversation_id: Uuid, body: String },
    /// An agent's internal note: `SendNote(conversationId, body)`.
    SendNote { conversation_id: Uuid, body: String },
    /// An agent typing, or no longer: `Typing(conversationId, isTyping)`.
    Typing {
        conversation_id: Uuid,
        is_typing: bool,
    },
    /// An agent hears the conversation's typing from now on: `JoinConversation(conversationId)`.
    JoinConversation { conversation_id: Uuid },
    /// ... and no longer: `LeaveConversation(conversationId)`.
    LeaveConversation { conversation_id: Uuid },
    /// A visitor writes in their own conversation: `SendMessage(body)`.
    VisitorSendMessage { body: String },
    /// A visitor typing, or no longer, in their own conversation: `Typing(isTyping)`.
    VisitorTyping { is_typing: bool },
}

/// Why a call does not parse; its message is the Completion's error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// No method of that name for the caller's kind: refused before anything else.
    UnknownMethod(String),
    /// The method's arguments do not bind (count, types, NUL in text): refused once the
    /// caller's access is checked.
    Arguments(String),
}

impl ParseError {
    pub fn message(&self) -> &str {
        match self {
            Self::UnknownMethod(message) | Self::Arguments(message) => message,
        }
    }
}

impl From<ParseError> for Failure {
    fn from(error: ParseError) -> Self {
        match error {
            ParseError::UnknownMethod(message) | ParseError::Arguments(message) => {
                Self::Refused(message)
            }
        }
    }
}

/// The methods, by their lowercased name, and the arguments each takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    SendMessage,
    SendNote,
    Typing,
    JoinConversation,
    LeaveConversation,
    VisitorSendMessage,
    VisitorTyping,
}

impl Method {
    /// The method `target` names for a caller of `kind`, its case aside.
    fn named(target: &str, kind: Kind) -> Option<Self> {
        let method = target.to_ascii_lowercase();
        Some(match (kind, method.as_str()) {
            (Kind::Agent, "sendmessage") => Self::SendMessage,
            (Kind::Agent, "sendnote") => Self::SendNote,
            (Kind::Agent, "typing") => Self::Typing,
            (Kind::Agent, "joinconversation") => Self::JoinConversation,
            (Kind::Agent, "leaveconversation") => Self::LeaveConversation,
            (Kind::Visitor, "sendmessage") => Self::VisitorSendMessage,
            (Kind::Visitor, "typing") => Self::VisitorTyping,
            _ => return None,
        })
    }

    /// The arguments, as the wrong-arguments refusal lists them.
    fn usage(self) -> &'static str {
        match self {
            Self::SendMessage | Self::SendNote => "(conversationId, body)",
            Self::Typing => "(conversationId, isTyping)",
            Self::JoinConversation | Self::LeaveConversation => "(conversationId)",
            Self::VisitorSendMessage => "(body)",
            Self::VisitorTyping => "(isTyping)",
        }
    }
}

impl Command {
    /// The call of `target` with `arguments` by a caller of `kind`: the method its name
    /// matches case-insensitively, its arguments bound by position and type, text holding
    /// U+0000 refused.
    pub fn parse(
        target: &str,
        arguments: &[Box<RawValue>],
        kind: Kind,
    ) -> Result<Self, ParseError> {
        let method = Method::named(target, kind)
            .ok_or_else(|| ParseError::UnknownMethod(format!("Unknown hub method '{target}'")))?;
        let arguments = Arguments {
            target,
            usage: method.usage(),
            joined: joined(arguments),
        };
        arguments.refuse_nul()?;
        Ok(match method {
            Method::SendMessage => {
                let (conversation_id, body) = arguments.bind()?;
                Self::SendMessage {
                    conversation_id,
                    body,
                }
            }
            Method::SendNote => {
                let (conversation_id, body) = arguments.bind()?;
                Self::SendNote {
                    conversation_id,
                    body,
                }
            }
            Method::Typing => {
                let (conversation_id, is_typing) = arguments.bind()?;
                Self::Typing {
                    conversation_id,
                    is_typing,
                }
            }
            Method::JoinConversation => {
                let (conversation_id,) = arguments.bind()?;
                Self::JoinConversation { conversation_id }
            }
            Method::LeaveConversation => {
                let (conversation_id,) = arguments.bind()?;
                Self::LeaveConversation { conversation_id }
            }
            Method::VisitorSendMessage => {
                let (body,) = arguments.bind()?;
                Self::VisitorSendMessage { body }
            }
            Method::VisitorTyping => {
                let (is_typing,) = arguments.bind()?;
                Self::VisitorTyping { is_typing }
            }
        })
    }
}

/// A call's arguments, as one JSON array, with what a refusal names.
struct Arguments<'a> {
    target: &'a str,
    usage: &'static str,
    joined: String,
}

fn joined(arguments: &[Box<RawValue>]) -> String {
    let items: Vec<&str> = arguments.iter().map(|a| a.get()).collect();
    format!("[{}]", items.join(","))
}

impl Arguments<'_> {
    /// REST's text rule: every argument holding U+0000, named by its position.
    fn refuse_nul(&self) -> Result<(), ParseError> {
        let nul = crate::extract::nul_fields_in_json(self.joined.as_bytes());
        if nul.is_empty() {
            return Ok(());
        }
        let named: Vec<String> = nul
            .iter()
            .map(|field| {
                format!(
                    "'{}' argument {field} {}",
                    self.target,
                    crate::extract::NUL_MESSAGE
                )
            })
            .collect();
        Err(ParseError::Arguments(named.join("; ")))
    }

    /// The arguments as a tuple of their types, exactly as many as it has.
    fn bind<T: DeserializeOwned>(&self) -> Result<T, ParseError> {
        serde_json::from_str(&self.joined).map_err(|_| {
            ParseError::Arguments(format!(
                "'{}' was called with the wrong arguments: {}",
                self.target, self.usage
            ))
        })
    }
}

/// Runs the call of `target`: an unknown method is refused, then the caller is checked, then
/// the command runs.
pub async fn invoke(
    state: &AppState,
    caller: &Caller,
    target: &str,
    arguments: &[Box<RawValue>],
) -> Outcome {
    let parsed = match Command::parse(target, arguments, caller.who.kind()) {
        Err(unknown @ ParseError::UnknownMethod(_)) => return Err(unknown.into()),
        parsed => parsed,
    };
    match &caller.who {
        Participant::Agent(agent) => {
            let actor = member(state, agent).await?;
            run_as_agent(state, agent, caller.connection, actor, parsed?).await
        }
        Participant::Visitor(who) => {
            let visitor = allowed(access::visitor(state, who).await)?;
            run_as_visitor(state, &visitor, parsed?).await
        }
    }
}

/// A visitor's commands, on their own conversation only.
async fn run_as_visitor(state: &AppState, visitor: &Visitor, command: Command) -> Outcome {
    match command {
        Command::VisitorSendMessage { body } => {
            let posted = widget::actions::post(state, visitor, &body, Vec::new()).await?;
            Ok(Some(serde_json::to_value(posted).unwrap_or(Value::Null)))
        }
        Command::VisitorTyping { is_typing } => {
            widget::actions::typing(state, visitor, is_typing).await?;
            Ok(None)
        }
        // `Command::parse` gives a visitor's commands only.
        _ => Err(Failure::Refused("not a widget visitor's method".into())),
    }
}

async fn run_as_agent(
    state: &AppState,
    agent: &AgentIdentity,
    connection: u64,
    actor: Actor,
    command: Command,
) -> Outcome {
    match command {
        Command::SendMessage {
            conversation_id,
            body,
        } => send(state, actor, conversation_id, &body, MessageKind::Outgoing).await,
        Command::SendNote {
            conversation_id,
            body,
        } => send(state, actor, conversation_id, &body, MessageKind::Note).await,
        Command::Typing {
            conversation_id,
            is_typing,
        } => {
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
        Command::JoinConversation { conversation_id } => {
            found(actions::exists(state, actor, conversation_id).await?)?;
            let registry = state.hub.registry();
            registry.join(agent.workspace_id, connection, conversation_id, true);
            Ok(None)
        }
        Command::LeaveConversation { conversation_id } => {
            let registry = state.hub.registry();
            registry.join(agent.workspace_id, connection, conversation_id, false);
            Ok(None)
        }
        // `Command::parse` gives an agent's commands only.
        _ => Err(Failure::Refused("not an agent's method".into())),
    }
}

/// `SendMessage` and `SendNote`: the body checked as REST checks it, then posted.
async fn send(
    state: &AppState,
    actor: Actor,
    conversation_id: Uuid,
    body: &str,
    kind: MessageKind,
) -> Outcome {
    let message = NewMessage::parse(body)?;
    let message = actions::post_message(state, actor, conversation_id, message, kind).await?;
    Ok(Some(serde_json::to_value(message).unwrap_or(Value::Null)))
}

/// The caller as a REST request would be authorised now; a member who lost access ends the
/// connection.
async fn member(state: &AppState, agent: &AgentIdentity) -> Result<Actor, Failure> {
    let actor = allowed(access::agent(state, agent).await)?;
    if !actor.may(Permission::HandleConversations) {
        return Err(Failure::Refused("you may not handle conversations".into()));
    }
    Ok(actor)
}

/// The checked caller; lost access ends the connection, a check that failed refuses the call.
fn allowed<T>(access: Access<T>) -> Result<T, Failure> {
    match access {
        Access::Allowed(allowed) => Ok(allowed),
        Access::Lost(lost) => Err(Failure::Ended(lost)),
        Access::Unknown(error) => Err(error.into()),
    }
}

fn found(exists: bool) -> Result<(), Failure> {
    if exists {
        Ok(())
    } else {
        Err(Error::NotFound("conversation").into())
    }
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

    fn id_json(id: Uuid) -> String {
        format!("\"{id}\"")
    }

    fn agent(target: &str, arguments: &[&str]) -> Result<Command, ParseError> {
        Command::parse(target, &raw(arguments), Kind::Agent)
    }

    fn visitor(target: &str, arguments: &[&str]) -> Result<Command, ParseError> {
        Command::parse(target, &raw(arguments), Kind::Visitor)
    }

    fn wrong(target: &str, usage: &str) -> Result<Command, ParseError> {
        Err(ParseError::Arguments(format!(
            "'{target}' was called with the wrong arguments: {usage}"
        )))
    }

    #[test]
    fn each_agent_method_binds_its_arguments() {
        let id = Uuid::new_v4();
        let conversation = id_json(id);
        assert_eq!(
            agent("SendMessage", &[&conversation, "\"hi\""]),
            Ok(Command::SendMessage {
                conversation_id: id,
                body: "hi".into()
            })
        );
        assert_eq!(
            agent("SendNote", &[&conversation, "\"fyi\""]),
            Ok(Command::SendNote {
                conversation_id: id,
                body: "fyi".into()
            })
        );
        assert_eq!(
            agent("Typing", &[&conversation, "true"]),
            Ok(Command::Typing {
                conversation_id: id,
                is_typing: true
            })
        );
        assert_eq!(
            agent("JoinConversation", &[&conversation]),
            Ok(Command::JoinConversation {
                conversation_id: id
            })
        );
        assert_eq!(
            agent("LeaveConversation", &[&conversation]),
            Ok(Command::LeaveConversation {
                conversation_id: id
            })
        );
    }

    #[test]
    fn each_visitor_method_binds_its_arguments() {
        assert_eq!(
            visitor("SendMessage", &["\"hello\""]),
            Ok(Command::VisitorSendMessage {
                body: "hello".into()
            })
        );
        assert_eq!(
            visitor("Typing", &["false"]),
            Ok(Command::VisitorTyping { is_typing: false })
        );
    }

    #[test]
    fn method_names_match_whatever_their_case() {
        let id = Uuid::new_v4();
        for target in ["joinconversation", "JOINCONVERSATION", "joinConversation"] {
            assert_eq!(
                agent(target, &[&id_json(id)]),
                Ok(Command::JoinConversation {
                    conversation_id: id
                }),
                "{target}"
            );
        }
        assert_eq!(
            visitor("TYPING", &["true"]),
            Ok(Command::VisitorTyping { is_typing: true })
        );
    }

    #[test]
    fn an_unknown_method_is_named_as_called() {
        assert_eq!(
            agent("Shout", &["\"hi\""]),
            Err(ParseError::UnknownMethod(
                "Unknown hub method 'Shout'".into()
            ))
        );
        let id = id_json(Uuid::new_v4());
        for agents_only in ["SendNote", "JoinConversation", "leaveConversation"] {
            assert_eq!(
                visitor(agents_only, &[&id]),
                Err(ParseError::UnknownMethod(format!(
                    "Unknown hub method '{agents_only}'"
                ))),
                "a visitor has no {agents_only}"
            );
        }
    }

    #[test]
    fn the_wrong_number_of_arguments_says_what_the_method_takes() {
        let id = id_json(Uuid::nil());
        assert_eq!(
            agent("SendMessage", &[&id]),
            wrong("SendMessage", "(conversationId, body)")
        );
        assert_eq!(
            agent("sendMessage", &[&id, "\"hi\"", "3"]),
            wrong("sendMessage", "(conversationId, body)")
        );
        assert_eq!(
            agent("JoinConversation", &[]),
            wrong("JoinConversation", "(conversationId)")
        );
        assert_eq!(
            agent("Typing", &[&id]),
            wrong("Typing", "(conversationId, isTyping)")
        );
        assert_eq!(
            visitor("SendMessage", &[&id, "\"hi\""]),
            wrong("SendMessage", "(body)")
        );
        assert_eq!(visitor("Typing", &[]), wrong("Typing", "(isTyping)"));
    }

    #[test]
    fn arguments_of_the_wrong_type_say_what_the_method_takes() {
        let id = id_json(Uuid::nil());
        assert_eq!(
            agent("SendMessage", &["\"not-a-uuid\"", "\"hi\""]),
            wrong("SendMessage", "(conversationId, body)")
        );
        assert_eq!(
            agent("SendNote", &[&id, "7"]),
            wrong("SendNote", "(conversationId, body)")
        );
        assert_eq!(
            agent("Typing", &[&id, "\"yes\""]),
            wrong("Typing", "(conversationId, isTyping)")
        );
        assert_eq!(
            agent("LeaveConversation", &["null"]),
            wrong("LeaveConversation", "(conversationId)")
        );
        assert_eq!(
            visitor("SendMessage", &["{}"]),
            wrong("SendMessage", "(body)")
        );
        assert_eq!(visitor("Typing", &["1"]), wrong("Typing", "(isTyping)"));
    }

    #[test]
    fn text_holding_nul_is_refused_naming_the_argument_as_rest_does() {
        let id = id_json(Uuid::new_v4());
        let refused = agent("SendMessage", &[&id, "\"a\\u0000b\""]);
        assert_eq!(
            refused,
            Err(ParseError::Arguments(
                "'SendMessage' argument [1] must not contain the NUL character (U+0000)".into()
            ))
        );
        assert_eq!(
            visitor("sendmessage", &["\"\\u0000\""]).map_err(|e| e.message().to_owned()),
            Err("'sendmessage' argument [0] must not contain the NUL character (U+0000)".into())
        );
        // Checked before the types: a NUL anywhere is named, whatever the method takes there.
        assert_eq!(
            agent("Typing", &["\"\\u0000\"", "true"]),
            Err(ParseError::Arguments(
                "'Typing' argument [0] must not contain the NUL character (U+0000)".into()
            ))
        );
        let Ok(Command::SendMessage { body, .. }) = agent("SendMessage", &[&id, "\"a\\\\u0000b\""])
        else {
            panic!("an escaped backslash before u0000 is text, not a NUL");
        };
        assert_eq!(body, "a\\u0000b");
    }

    #[test]
    fn a_refusal_is_the_completions_error() {
        let failure = Failure::from(ParseError::UnknownMethod("Unknown hub method 'X'".into()));
        assert_eq!(failure.message(), "Unknown hub method 'X'");
    }
}
