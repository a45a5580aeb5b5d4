//! `GET /files/{workspace}/{attachment}/{variant}?expires=&signature=`: a file, for whoever
//! holds a link the API signed in the last five minutes (`links`). No bearer token: `<img>`
//! and a click on a link send none.
//!
//! Served so that no file can act in a page of ours: `X-Content-Type-Options: nosniff` (the
//! browser takes the sniffed type we stored), `Content-Security-Policy: sandbox` (a document
//! opened from here runs no script and has an opaque origin), and `Content-Disposition:
//! attachment` for everything but images and PDFs, so HTML and SVG only ever download. The
//! API's origin is not the dashboard's or the widget's either.

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::TryStreamExt;
use object_store::ObjectStoreExt;
use serde::Deserialize;
use supportdesk_core::storage::{Variant, attachment_path};
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::IntoParams;
use uuid::Uuid;

use super::links::Refused;
use super::record::{self, Attachment};
use crate::error::{Error, Result};
use crate::extract::PathId;
use crate::state::AppState;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LinkQuery {
    /// Unix time after which the link opens nothing.
    expires: i64,
    signature: String,
    /// `1`: download even an image or PDF.
    #[serde(default)]
    download: Option<String>,
}

fn refused(refusal: Refused) -> Error {
    match refusal {
        Refused::Expired => Error::forbidden(
            "link_expired",
            "this link has expired; open the file again from the conversation",
        ),
        Refused::Forged => Error::forbidden("link_invalid", "this link is not valid"),
    }
}

/// A file, by a signed link from an attachment's `url` or `thumbnailUrl`.
#[utoipa::path(
    get, path = "/files/{workspaceId}/{attachmentId}/{variant}", tag = "attachments",
    params(
        ("workspaceId" = Uuid, Path),
        ("attachmentId" = Uuid, Path),
        ("variant" = String, Path, description = "`original` or `thumbnail`"),
        LinkQuery,
    ),
    responses(
        (status = 200, description = "The file", content_type = "application/octet-stream"),
        (status = 403, description = "The link is expired or not valid", body = crate::error::Problem),
        (status = 404, description = "No such file (any more)", body = crate::error::Problem),
    )
)]
pub async fn download(
    State(state): State<AppState>,
    Path((workspace, attachment, variant)): Path<(String, String, String)>,
    query: std::result::Result<Query<LinkQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response> {
    let Query(query) = query.map_err(|_| refused(Refused::Forged))?;
    let not_found = || Error::NotFound("attachment");
    let workspace_id: Uuid = workspace.parse().map_err(|_| not_found())?;
    let id = PathId::<Attachment>::parse(&attachment)?.id;
    let variant = Variant::parse(&variant).ok_or_else(not_found)?;
    state
        .files
        .links
        .check(
            workspace_id,
            id,
            variant,
            query.expires,
            &query.signature,
            OffsetDateTime::now_utc(),
        )
        .map_err(refused)?;

    let schema = live_schema(&state, workspace_id)
        .await?
        .ok_or_else(not_found)?;
    let served = {
        let mut conn = state.reads.get(&schema).await?;
        record::served(&mut conn, &schema, id).await?
    }
    .ok_or_else(not_found)?;
    let (content_type, inline) = match variant {
        Variant::Original => (served.content_type, served.inline),
        Variant::Thumbnail => (served.thumbnail_type.ok_or_else(not_found)?, true),
    };
    let object = match state
        .files
        .store
        .get(&attachment_path(workspace_id, id, variant))
        .await
    {
        Ok(object) => object,
        Err(object_store::Error::NotFound { .. }) => return Err(not_found()),
        Err(e) => return Err(super::upload::store_failed(e)),
    };
    let length = object.meta.size;
    let body = body_of(object).await?;
    let inline = inline && query.download.as_deref() != Some("1");
    let mut response = (StatusCode::OK, body).into_response();
    let headers = response.headers_mut();
    let header_value = |v: &str| {
        HeaderValue::from_str(v).unwrap_or(HeaderValue::from_static("application/octet-stream"))
    };
    headers.insert(header::CONTENT_TYPE, header_value(&content_type));
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    if let Ok(disposition) = HeaderValue::from_str(&disposition(&served.name, inline)) {
        headers.insert(header::CONTENT_DISPOSITION, disposition);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("sandbox"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=300"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    // The apps show thumbnails from another origin than theirs.
    headers.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("cross-origin"),
    );
    Ok(response)
}

/// How many bytes a read of a local file takes at once: `object_store` reads 8 KiB at a time,
/// each a hand-off to a blocking thread, which made half the API's CPU on local downloads
/// context switches (docs/performance.md).
const LOCAL_READ: usize = 256 * 1024;

/// The object's bytes as a response body: a local file read in large pieces, anything else
/// as the store streams it.
async fn body_of(object: object_store::GetResult) -> Result<Body> {
    match object.payload {
        object_store::GetResultPayload::File(file, _) => {
            use tokio::io::{AsyncReadExt, AsyncSeekExt};
            let range = object.range;
            let mut file = tokio::fs::File::from_std(file);
            file.seek(std::io::SeekFrom::Start(range.start))
                .await
                .map_err(super::upload::store_failed)?;
            let reader = file.take(range.end - range.start);
            Ok(Body::from_stream(
                tokio_util::io::ReaderStream::with_capacity(reader, LOCAL_READ),
            ))
        }
        object_store::GetResultPayload::Stream(stream) => {
            Ok(Body::from_stream(stream.map_err(std::io::Error::other)))
        }
    }
}

/// The schema of a workspace that is still live; `None` once it is being deleted.
async fn live_schema(state: &AppState, workspace_id: Uuid) -> Result<Option<TenantSchema>> {
    let schema: Option<String> = sqlx::query_scalar(
        "SELECT schema_name FROM public.workspaces WHERE id = $1 AND status = 'active'",
    )
    .bind(workspace_id)
    .fetch_optional(&state.db)
    .await?;
    schema
        .map(|s| TenantSchema::parse(&s).map_err(|e| Error::Internal(anyhow::anyhow!(e))))
        .transpose()
}

/// `Content-Disposition` with the sender's name: an ASCII fallback and the exact name in
/// RFC 5987 encoding.
pub fn disposition(name: &str, inline: bool) -> String {
    let kind = if inline { "inline" } else { "attachment" };
    let fallback: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let encoded: String = name
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("{kind}; filename=\"{fallback}\"; filename*=UTF-8''{encoded}")
}

#[cfg(test)]
mod tests {
    use super::disposition;

    #[test]
    fn names_are_quoted_safely() {
        assert_eq!(
            disposition("a.pdf", true),
            "inline; filename=\"a.pdf\"; filename*=UTF-8''a.pdf"
        );
        assert_eq!(
            disposition("r\u{e9}sum\u{e9} \"x\".html", false),
            "attachment; filename=\"r_sum_ _x_.html\"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22x%22.html"
        );
    }
}
