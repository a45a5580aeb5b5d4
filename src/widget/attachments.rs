//! The visitor's files: upload (10 MiB a file, 20 files an hour) and a fresh link to a file
//! they may see: their own uploads, and the files of their conversations' messages, never a
//! note's.

use std::time::Duration;

use axum::extract::{Multipart, State};
use axum::http::{HeaderMap, StatusCode};

use crate::attachments::record::{self, Attachment, Uploader};
use crate::attachments::upload::{self, Upload, declared_bytes};
use crate::attachments::{FileUpload, VISITOR_MAX_BYTES};
use crate::error::{Error, Result};
use crate::extract::{AppJson, PathId};
use crate::rate_limit::Quota;
use crate::state::AppState;

use super::actions::limit;
use super::visitor::Visitor;

/// Files one visitor may upload.
const FILES: Quota = Quota {
    limit: 20,
    window: Duration::from_secs(3600),
};

/// Upload a file (at most 10 MiB) to send with a message: put its `id` in the message's
/// `attachmentIds`. Images lose their metadata (location included) and get a thumbnail.
#[utoipa::path(
    post, path = "/widget/v1/attachments", tag = "widget",
    security(("visitor" = [])),
    request_body(content = FileUpload, content_type = "multipart/form-data"),
    responses(
        (status = 201, description = "The stored file", body = Attachment),
        (status = 401, description = "Missing, invalid or expired visitor token",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a visitor token (`wrong_token_type`), or a deleted workspace",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 413, description = "Larger than 10 MiB, or over the workspace's quota",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 415, description = "A program or script",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 429, description = "More than 20 files in an hour; see Retry-After",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn upload(
    State(state): State<AppState>,
    visitor: Visitor,
    headers: HeaderMap,
    multipart: std::result::Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Result<(StatusCode, AppJson<Attachment>)> {
    let multipart = upload::multipart(multipart)?;
    limit(&state, "attachments", &visitor, FILES).await?;
    let upload = Upload {
        workspace_id: visitor.workspace_id,
        schema: &visitor.schema,
        uploader: Uploader::Visitor(visitor.contact_id),
        conversation_id: None,
        max_bytes: VISITOR_MAX_BYTES,
        strip_metadata: true,
        declared_bytes: declared_bytes(&headers),
    };
    let attachment = upload::receive(&state, upload, multipart).await?;
    Ok((StatusCode::CREATED, AppJson(attachment)))
}

/// A file the visitor may see, with fresh links (good for five minutes).
#[utoipa::path(
    get, path = "/widget/v1/attachments/{id}", tag = "widget",
    security(("visitor" = [])),
    params(("id" = Uuid, Path, description = "Attachment id")),
    responses(
        (status = 200, description = "The file with fresh links", body = Attachment),
        (status = 401, description = "Missing, invalid or expired visitor token",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a visitor token (`wrong_token_type`), or a deleted workspace",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such file of this visitor's",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn get(
    State(state): State<AppState>,
    visitor: Visitor,
    PathId { id, .. }: PathId<Attachment>,
) -> Result<AppJson<Attachment>> {
    let mut conn = visitor.read(&state).await?;
    let attachment = record::of_visitor(&mut conn, &visitor.schema, visitor.contact_id, id)
        .await?
        .ok_or(Error::NotFound("attachment"))?;
    Ok(AppJson(
        attachment.linked(&state.files.links, visitor.workspace_id),
    ))
}
