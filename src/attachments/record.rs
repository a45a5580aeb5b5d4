//! The attachment record and its statements. Who may read which attachment is written into
//! each read: an agent, any file of a conversation of theirs; a visitor, only files of their
//! own contact's messages that are not notes, and their own uploads not yet sent.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use supportdesk_core::storage::Variant;
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use super::links::{LINK_LIFETIME, LinkKey};

/// A file on a message. The links are minted for each answer and hub event, good for five
/// minutes; the event log keeps the file's facts without them (a stored link would be dead by
/// the time a reader pages to it): `GET .../attachments/{id}` mints fresh ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    pub id: Uuid,
    /// The sender's file name, without any directory.
    pub name: String,
    /// Sniffed from the file's bytes.
    #[schema(example = "image/png")]
    pub content_type: String,
    /// Bytes.
    pub size: i64,
    /// Images: width and height in pixels (as displayed); null for other files.
    pub width: Option<i32>,
    pub height: Option<i32>,
    /// Whether `thumbnailUrl` is given (images).
    pub has_thumbnail: bool,
    /// The file, signed, until `expiresAt` (resolve against the API's base URL). Images and
    /// PDFs open in the browser; everything else downloads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[sqlx(skip)]
    pub url: Option<String>,
    /// A preview of at most 320 pixels a side, signed likewise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[sqlx(skip)]
    pub thumbnail_url: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::serde::rfc3339::option"
    )]
    #[schema(value_type = Option<String>, format = DateTime)]
    #[sqlx(skip)]
    pub expires_at: Option<OffsetDateTime>,
}

impl crate::extract::Resource for Attachment {
    const NAME: &'static str = "attachment";
}

impl Attachment {
    /// With links good for [`LINK_LIFETIME`] from now.
    pub fn linked(mut self, key: &LinkKey, workspace_id: Uuid) -> Self {
        self.link(key, workspace_id);
        self
    }

    /// Sets links good for [`LINK_LIFETIME`] from now.
    pub fn link(&mut self, key: &LinkKey, workspace_id: Uuid) {
        let expires = OffsetDateTime::now_utc() + LINK_LIFETIME;
        let expires = expires.replace_nanosecond(0).unwrap_or(expires);
        self.url = Some(key.link(workspace_id, self.id, Variant::Original, expires));
        self.thumbnail_url = self
            .has_thumbnail
            .then(|| key.link(workspace_id, self.id, Variant::Thumbnail, expires));
        self.expires_at = Some(expires);
    }
}

/// Links for each attachment of each message.
pub fn link_all<'a>(
    attachments: impl IntoIterator<Item = &'a mut Attachment>,
    key: &LinkKey,
    workspace_id: Uuid,
) {
    for attachment in attachments {
        attachment.link(key, workspace_id);
    }
}

/// The columns of [`Attachment`], of the table aliased `a`.
pub(crate) const COLUMNS: &str = "a.id, a.name, a.content_type, a.size, a.width, a.height,
                       a.thumbnail_type IS NOT NULL AS has_thumbnail";

/// An attachment's facts as JSON, in [`Attachment`]'s shape without links: what the event
/// log records. `t` is the alias of a row of the attachments table.
pub fn json_of(t: &str) -> String {
    format!(
        "json_build_object('id', {t}.id, 'name', {t}.name, 'contentType', {t}.content_type,
                           'size', {t}.size, 'width', {t}.width, 'height', {t}.height,
                           'hasThumbnail', {t}.thumbnail_type IS NOT NULL)"
    )
}

/// Who uploaded a file.
#[derive(Debug, Clone, Copy)]
pub enum Uploader {
    Member(Uuid),
    ApiKey(Uuid),
    Visitor(Uuid),
}

impl Uploader {
    fn parts(self) -> (&'static str, Uuid) {
        match self {
            Self::Member(id) => ("member", id),
            Self::ApiKey(id) => ("api_key", id),
            Self::Visitor(id) => ("visitor", id),
        }
    }
}

/// A file stored and about to be recorded.
#[derive(Debug)]
pub struct NewAttachment {
    pub id: Uuid,
    pub conversation_id: Option<Uuid>,
    pub uploader: Uploader,
    pub name: String,
    pub content_type: String,
    pub size: i64,
    pub dimensions: Option<(u32, u32)>,
    pub inline: bool,
    pub thumbnail_type: Option<&'static str>,
}

/// Records a stored file, counting it against the workspace's `quota` (bytes): `None` when it
/// does not fit. The usage row is locked until the transaction ends, so concurrent uploads
/// cannot together pass the quota.
pub async fn insert(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    new: &NewAttachment,
    quota: i64,
) -> sqlx::Result<Option<Attachment>> {
    let fits = sqlx::query(schema.sql(
        "UPDATE {schema}.storage_usage SET bytes = bytes + $1, files = files + 1
          WHERE bytes + $1 <= $2",
    ))
    .bind(new.size)
    .bind(quota)
    .execute(&mut *conn)
    .await?
    .rows_affected()
        == 1;
    if !fits {
        return Ok(None);
    }
    let (kind, uploader_id) = new.uploader.parts();
    let (width, height) = new
        .dimensions
        .map(|(w, h)| (i32::try_from(w).ok(), i32::try_from(h).ok()))
        .unwrap_or_default();
    let attachment = sqlx::query_as(schema.sql(&format!(
        "INSERT INTO {{schema}}.attachments AS a
                (id, conversation_id, uploader_kind, uploader_id, name, content_type, size,
                 width, height, inline, thumbnail_type)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         RETURNING {COLUMNS}"
    )))
    .bind(new.id)
    .bind(new.conversation_id)
    .bind(kind)
    .bind(uploader_id)
    .bind(&new.name)
    .bind(&new.content_type)
    .bind(new.size)
    .bind(width)
    .bind(height)
    .bind(new.inline)
    .bind(new.thumbnail_type)
    .fetch_one(conn)
    .await?;
    Ok(Some(attachment))
}

/// What the workspace's files take: bytes and files.
pub async fn usage(conn: &mut PgConnection, schema: &TenantSchema) -> sqlx::Result<(i64, i64)> {
    sqlx::query_as(schema.sql("SELECT bytes, files FROM {schema}.storage_usage"))
        .fetch_one(conn)
        .await
}

/// An attachment of conversation `conversation_id`, as its agents see it (notes' files too).
pub async fn of_conversation(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    conversation_id: Uuid,
    id: Uuid,
) -> sqlx::Result<Option<Attachment>> {
    sqlx::query_as(schema.sql(&format!(
        "SELECT {COLUMNS} FROM {{schema}}.attachments a
          WHERE a.id = $1 AND a.conversation_id = $2"
    )))
    .bind(id)
    .bind(conversation_id)
    .fetch_optional(conn)
    .await
}

/// An attachment the visitor of contact `contact_id` may open: on a message of their own
/// conversations that is not a note, or their own upload not yet sent.
pub async fn of_visitor(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    contact_id: Uuid,
    id: Uuid,
) -> sqlx::Result<Option<Attachment>> {
    sqlx::query_as(schema.sql(&format!(
        "SELECT {COLUMNS} FROM {{schema}}.attachments a
           LEFT JOIN {{schema}}.messages m ON m.id = a.message_id
           LEFT JOIN {{schema}}.conversations c ON c.id = m.conversation_id
          WHERE a.id = $1
            AND ((m.kind <> 'note' AND c.contact_id = $2)
                 OR (a.message_id IS NULL AND a.uploader_kind = 'visitor'
                     AND a.uploader_id = $2))"
    )))
    .bind(id)
    .bind(contact_id)
    .fetch_optional(conn)
    .await
}

/// The attachments of messages `message_ids`, by message, in upload order.
pub async fn of_messages(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    message_ids: &[Uuid],
) -> sqlx::Result<HashMap<Uuid, Vec<Attachment>>> {
    let mut by_message: HashMap<Uuid, Vec<Attachment>> = HashMap::new();
    if message_ids.is_empty() {
        return Ok(by_message);
    }
    let rows: Vec<(Uuid, sqlx::types::Json<Attachment>)> = sqlx::query_as(schema.sql(&format!(
        "SELECT a.message_id, {json} FROM {{schema}}.attachments a
          WHERE a.message_id = ANY($1)
          ORDER BY a.message_id, a.created_at, a.id",
        json = json_of("a"),
    )))
    .bind(message_ids)
    .fetch_all(conn)
    .await?;
    for (message_id, attachment) in rows {
        by_message.entry(message_id).or_default().push(attachment.0);
    }
    Ok(by_message)
}

/// Locks files `ids` of conversation `conversation_id` that no message took yet, for a
/// message of an agent; whether all of them are there. A concurrent message taking one of
/// them waits, then finds it taken.
pub async fn lock_unsent_of_conversation(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    conversation_id: Uuid,
    ids: &[Uuid],
) -> sqlx::Result<bool> {
    let locked: i64 = sqlx::query_scalar(schema.sql(
        "SELECT count(*) FROM (SELECT 1 FROM {schema}.attachments
                                 WHERE id = ANY($1) AND conversation_id = $2
                                   AND message_id IS NULL
                                   AND uploader_kind <> 'visitor'
                                   FOR UPDATE) locked",
    ))
    .bind(ids)
    .bind(conversation_id)
    .fetch_one(conn)
    .await?;
    Ok(usize::try_from(locked).ok() == Some(ids.len()))
}

/// Puts the visitor's unsent uploads `ids` on their message `message_id`; `None` unless all
/// of them were theirs and unsent.
pub async fn take_for_visitor_message(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    contact_id: Uuid,
    conversation_id: Uuid,
    message_id: Uuid,
    ids: &[Uuid],
) -> sqlx::Result<Option<Vec<Attachment>>> {
    if ids.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let taken: Vec<Attachment> = sqlx::query_as(schema.sql(&format!(
        "WITH t AS (UPDATE {{schema}}.attachments
                       SET message_id = $3, conversation_id = $4
                     WHERE id = ANY($1) AND uploader_kind = 'visitor' AND uploader_id = $2
                       AND message_id IS NULL
                     RETURNING *)
         SELECT {COLUMNS} FROM t a ORDER BY a.created_at, a.id"
    )))
    .bind(ids)
    .bind(contact_id)
    .bind(message_id)
    .bind(conversation_id)
    .fetch_all(conn)
    .await?;
    Ok((taken.len() == ids.len()).then_some(taken))
}

/// What serving a file needs.
#[derive(Debug, sqlx::FromRow)]
pub struct Served {
    pub name: String,
    pub content_type: String,
    pub inline: bool,
    pub thumbnail_type: Option<String>,
}

pub async fn served(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
) -> sqlx::Result<Option<Served>> {
    sqlx::query_as(schema.sql(
        "SELECT name, content_type, inline, thumbnail_type FROM {schema}.attachments WHERE id = $1",
    ))
    .bind(id)
    .fetch_optional(conn)
    .await
}
