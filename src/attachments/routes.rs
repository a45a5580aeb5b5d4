//! The agents' attachment routes: upload for a conversation, a fresh link, and what the
//! workspace's files take.

use axum::extract::{Multipart, State};
use axum::http::{HeaderMap, StatusCode};
use serde::Serialize;
use utoipa::ToSchema;

use super::record::{self, Attachment, Uploader};
use super::upload::{self, Upload, declared_bytes};
use crate::authz::{Actor, Principal};
use crate::conversations::record::{self as conversations, Conversation};
use crate::error::responses::MemberErrors;
use crate::error::{Error, Result};
use crate::extract::{AppJson, PathId};
use crate::state::AppState;
use crate::tenancy::context::Tenant;

/// The largest file an agent may attach: 25 MiB.
pub const AGENT_MAX_BYTES: u64 = 25 * 1024 * 1024;

/// A multipart upload: one part named `file`.
#[derive(ToSchema)]
#[allow(dead_code, reason = "documents the request body for OpenAPI")]
pub struct FileUpload {
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
}

/// Upload a file for a reply or note of this conversation (at most 25 MiB); put its `id` in
/// the message's `attachmentIds`. Programs and scripts are refused (415); images get a
/// thumbnail.
#[utoipa::path(
    post, path = "/api/conversations/{id}/attachments", tag = "attachments",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Conversation id")),
    request_body(content = FileUpload, content_type = "multipart/form-data"),
    responses(
        (status = 201, description = "The stored file", body = Attachment),
        (status = 413, description = "Larger than 25 MiB, or over the workspace's quota", body = crate::error::Problem),
        (status = 415, description = "A program or script", body = crate::error::Problem),
        (status = 422, description = "An image too large or unreadable", body = crate::error::Problem),
        MemberErrors,
    )
)]
pub async fn upload(
    State(state): State<AppState>,
    actor: Actor,
    PathId { id, .. }: PathId<Conversation>,
    headers: HeaderMap,
    multipart: std::result::Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Result<(StatusCode, AppJson<Attachment>)> {
    let multipart = upload::multipart(multipart)?;
    {
        let mut tenant = Tenant::acquire(&state, actor.clone()).await?;
        let (conn, schema) = tenant.parts();
        if !conversations::exists(conn, schema, id).await? {
            return Err(Error::NotFound("conversation"));
        }
    }
    let uploader = match actor.principal {
        Principal::Member { user_id, .. } => Uploader::Member(user_id),
        Principal::ApiKey { key_id } => Uploader::ApiKey(key_id),
    };
    let upload = Upload {
        workspace_id: actor.workspace_id,
        schema: &actor.schema,
        uploader,
        conversation_id: Some(id),
        max_bytes: AGENT_MAX_BYTES,
        strip_metadata: false,
        declared_bytes: declared_bytes(&headers),
    };
    let attachment = upload::receive(&state, upload, multipart).await?;
    Ok((StatusCode::CREATED, AppJson(attachment)))
}

/// A file of this conversation with fresh links (good for five minutes).
#[utoipa::path(
    get, path = "/api/conversations/{id}/attachments/{attachmentId}", tag = "attachments",
    security(("bearer" = [])),
    params(
        ("id" = Uuid, Path, description = "Conversation id"),
        ("attachmentId" = Uuid, Path, description = "Attachment id"),
    ),
    responses(
        (status = 200, description = "The file with fresh links", body = Attachment),
        MemberErrors,
    )
)]
pub async fn get(
    State(state): State<AppState>,
    axum::extract::Path((conversation_id, id)): axum::extract::Path<(String, String)>,
    mut tenant: Tenant,
) -> Result<AppJson<Attachment>> {
    let conversation_id = PathId::<Conversation>::parse(&conversation_id)?.id;
    let id = PathId::<Attachment>::parse(&id)?.id;
    let workspace_id = tenant.actor.workspace_id;
    let (conn, schema) = tenant.parts();
    let attachment = record::of_conversation(conn, schema, conversation_id, id)
        .await?
        .ok_or(Error::NotFound("attachment"))?;
    Ok(AppJson(attachment.linked(&state.files.links, workspace_id)))
}

/// What the workspace's files take.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StorageUse {
    pub used_bytes: i64,
    pub files: i64,
    pub quota_bytes: i64,
}

/// How much of the workspace's file quota is used.
#[utoipa::path(
    get, path = "/api/settings/storage", tag = "attachments",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Bytes and files stored, and the quota", body = StorageUse),
        MemberErrors,
    )
)]
pub async fn storage(
    State(state): State<AppState>,
    mut tenant: Tenant,
) -> Result<AppJson<StorageUse>> {
    let (conn, schema) = tenant.parts();
    let (used_bytes, files) = record::usage(conn, schema).await?;
    Ok(AppJson(StorageUse {
        used_bytes,
        files,
        quota_bytes: state.files.quota,
    }))
}
