//! `GET /api/search`.

use serde::Serialize;
use utoipa::ToSchema;

use crate::error::Result;
use crate::error::responses::MemberErrors;
use crate::extract::{AppJson, AppQuery};
use crate::inbox::assignee::AssigneeFilter;
use crate::pagination::PageQuery;
use crate::search::record::{self, SearchHit};
use crate::search::request::{self, Filters, Search, SearchQuery};
use crate::tenancy::context::Tenant;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchResults {
    pub results: Vec<SearchHit>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// Search the workspace: conversations by subject, messages and private notes by their text,
/// tickets by subject and description, contacts by name and address. Best match first, with
/// a highlighted snippet; filters narrow conversations, messages and tickets.
#[utoipa::path(
    get, path = "/api/search", tag = "search",
    security(("bearer" = [])),
    params(SearchQuery, PageQuery),
    responses(
        (status = 200, description = "A page of results, best first", body = SearchResults),
        MemberErrors,
    )
)]
pub async fn search(
    AppQuery(query): AppQuery<SearchQuery>,
    AppQuery(page): AppQuery<PageQuery>,
    mut tenant: Tenant,
) -> Result<AppJson<SearchResults>> {
    let words = request::words(query.q)?;
    let page = page.parse()?;
    let filters = Filters {
        status: query.status,
        assignee: AssigneeFilter::parse(query.assignee.as_deref(), &mut tenant).await?,
        channel: query.channel,
        priority: query.priority,
        label: query.label,
        created_after: query.created_after,
        created_before: query.created_before,
    };
    request::check_range(&filters)?;
    let search = Search {
        words,
        kinds: request::kinds(query.kind, &filters),
        filters,
    };
    let (results, next_cursor) = tenant
        .planned_read(move |conn, schema| {
            Box::pin(async move { record::search(conn, schema, &search, &page).await })
        })
        .await?;
    Ok(AppJson(SearchResults {
        results,
        next_cursor,
    }))
}
