//! `GET /api/contacts`, `GET /api/contacts/{id}` and `PATCH /api/contacts/{id}`.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::authz::Actor;
use crate::contacts::details::{self, COLUMNS, ContactDetails};
use crate::conversations::record::{self as conversations, Conversation, ListFilter, Reader};
use crate::email_address::EmailAddress;
use crate::error::OnConstraint;
use crate::error::responses::MemberErrors;
use crate::error::{Error, FieldChecks, Result};
use crate::events;
use crate::events::catalogue::DomainEvent;
use crate::extract::{AppJson, AppQuery, PathId};
use crate::inbox::contacts::NAME_MAX_CHARS;
use crate::pagination::{Page, PageQuery};
use crate::state::AppState;
use crate::tenancy::context::{Tenant, TenantTx};
use crate::tickets::record::{self as tickets, ListFilter as TicketFilter, Ticket};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Part of a name or an address, in any case (`carla`, `@example.org`).
    #[param(max_length = 200)]
    q: Option<String>,
    /// Only contacts with this label.
    label: Option<Uuid>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContactList {
    pub contacts: Vec<ContactDetails>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// The workspace's contacts, newest first, in pages; found by part of a name or an address,
/// or by a label.
#[utoipa::path(
    get, path = "/api/contacts", tag = "contacts",
    security(("bearer" = [])),
    params(ListQuery, PageQuery),
    responses(
        (status = 200, description = "A page of contacts", body = ContactList),
        MemberErrors,
    )
)]
pub async fn list(
    AppQuery(query): AppQuery<ListQuery>,
    AppQuery(page): AppQuery<PageQuery>,
    mut tenant: Tenant,
) -> Result<AppJson<ContactList>> {
    let words = query.q.as_deref().map(str::trim).filter(|q| !q.is_empty());
    if words.is_some_and(|q| q.chars().count() > QUERY_MAX_CHARS) {
        return Err(Error::invalid_field(
            "q",
            format!("must be at most {QUERY_MAX_CHARS} characters"),
        ));
    }
    let page = page.parse()?;
    let (conn, schema) = tenant.parts();
    let (contacts, next_cursor) = details::list(conn, schema, words, query.label, &page).await?;
    Ok(AppJson(ContactList {
        contacts,
        next_cursor,
    }))
}

/// How many of a contact's newest conversations and tickets come with the contact.
const ACTIVITY_SHOWN: u32 = 20;

/// A contact with their newest conversations and tickets: what the contact panel shows
/// first. More of either: `GET /api/conversations?contactId=` and
/// `GET /api/tickets?requesterId=` with the cursor given here.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContactWithActivity {
    #[serde(flatten)]
    pub contact: ContactDetails,
    /// Their newest conversations, at most 20, most recently active first.
    pub conversations: Vec<Conversation>,
    /// Pass as `cursor` to `GET /api/conversations?contactId=` for the rest; null when these
    /// are all.
    pub conversations_cursor: Option<String>,
    /// The tickets they asked for, at most 20, newest first.
    pub tickets: Vec<Ticket>,
    /// Pass as `cursor` to `GET /api/tickets?requesterId=` for the rest; null when these are
    /// all.
    pub tickets_cursor: Option<String>,
}

/// One contact, with what the chat widget last reported of their visit, and their newest
/// conversations and tickets.
#[utoipa::path(
    get, path = "/api/contacts/{id}", tag = "contacts",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Contact id")),
    responses(
        (status = 200, description = "The contact", body = ContactWithActivity),
        MemberErrors,
    )
)]
pub async fn get(
    PathId { id, .. }: PathId<ContactDetails>,
    mut tenant: Tenant,
) -> Result<AppJson<ContactWithActivity>> {
    let reader = Reader::of(&tenant.actor);
    let (conn, schema) = tenant.parts();
    let contact = details::find(conn, schema, id)
        .await?
        .ok_or(Error::NotFound("contact"))?;
    let (conversations, conversations_cursor) = conversations::list(
        conn,
        schema,
        ListFilter {
            contact: Some(id),
            ..ListFilter::default()
        },
        reader,
        &Page {
            limit: ACTIVITY_SHOWN,
            after: None,
        },
    )
    .await?;
    let (tickets, tickets_cursor) = tickets::list(
        conn,
        schema,
        TicketFilter {
            requester: Some(id),
            ..TicketFilter::default()
        },
        &Page {
            limit: ACTIVITY_SHOWN,
            after: None,
        },
    )
    .await?;
    Ok(AppJson(ContactWithActivity {
        contact,
        conversations,
        conversations_cursor,
        tickets,
        tickets_cursor,
    }))
}

/// The longest `q`, in characters.
const QUERY_MAX_CHARS: usize = 200;

/// Each field: absent leaves it, `null` clears it, a value sets it.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContactPatch {
    #[serde(default, with = "serde_with::rust::double_option")]
    #[schema(value_type = Option<String>, example = "Carla Diaz")]
    name: Option<Option<String>>,
    /// The address the workspace establishes for the contact (conversations and tickets find
    /// them by it), e.g. once an agent confirmed what a visitor claimed.
    #[serde(default, with = "serde_with::rust::double_option")]
    #[schema(value_type = Option<String>, example = "carla@example.org")]
    email: Option<Option<String>>,
}

/// A checked [`ContactPatch`]: `Some(value)` sets the field to `value`.
struct ContactChanges {
    name: Option<Option<String>>,
    email: Option<Option<EmailAddress>>,
}

impl TryFrom<ContactPatch> for ContactChanges {
    type Error = Error;

    fn try_from(patch: ContactPatch) -> Result<Self> {
        let mut checks = FieldChecks::default();
        let name = match patch.name {
            Some(Some(name)) => {
                let name = name.trim().to_owned();
                if name.is_empty() || name.chars().count() > NAME_MAX_CHARS {
                    checks.add("name", format!("must be 1 to {NAME_MAX_CHARS} characters"));
                }
                Some(Some(name))
            }
            other => other,
        };
        let email = match patch.email {
            Some(Some(email)) => checks.check("email", EmailAddress::parse(&email)).map(Some),
            Some(None) => Some(None),
            None => None,
        };
        if !checks.is_empty() {
            return Err(checks.failed());
        }
        Ok(Self { name, email })
    }
}

/// Correct a contact's name or email.
#[utoipa::path(
    patch, path = "/api/contacts/{id}", tag = "contacts",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Contact id")),
    request_body = ContactPatch,
    responses(
        (status = 200, description = "The updated contact", body = ContactDetails),
        (status = 409, description = "Another contact has this email", body = crate::error::Problem,
         content_type = "application/problem+json"),
        MemberErrors,
    )
)]
pub async fn update(
    State(state): State<AppState>,
    actor: Actor,
    PathId { id, .. }: PathId<ContactDetails>,
    AppJson(patch): AppJson<ContactPatch>,
) -> Result<AppJson<ContactDetails>> {
    let ContactChanges { name, email } = ContactChanges::try_from(patch)?;
    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    let before = details::find(&mut *conn, schema, id)
        .await?
        .ok_or(Error::NotFound("contact"))?;
    let updated: ContactDetails = sqlx::query_as(schema.sql(&format!(
        "UPDATE {{schema}}.contacts
            SET name = CASE WHEN $2 THEN $3 ELSE name END,
                email = CASE WHEN $4 THEN $5 ELSE email END,
                updated_at = now()
          WHERE id = $1
          RETURNING {COLUMNS}"
    )))
    .bind(id)
    .bind(name.is_some())
    .bind(name.flatten())
    .bind(email.is_some())
    .bind(email.flatten().as_ref().map(EmailAddress::as_str))
    .fetch_one(&mut *conn)
    .await
    .on_constraint("contacts_email_key", || {
        Error::conflict("email_taken", "another contact has this email address")
    })
    .on_constraint("contacts_named_somehow", || {
        Error::invalid_field(
            "email",
            "this contact is known by its email only: it cannot be removed",
        )
    })?;
    let changed = updated.contact.name != before.contact.name
        || updated.contact.email != before.contact.email;
    let events = if changed {
        vec![DomainEvent::ContactUpdated(updated.contact.clone())]
    } else {
        Vec::new()
    };
    events::record(&state, tenant, events).await?;
    Ok(AppJson(updated))
}
