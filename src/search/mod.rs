//! `GET /api/search`: one search box over the workspace's conversations, messages (notes
//! included), tickets and contacts.
//!
//! Everything is indexed inside the workspace's schema (`tenant_migrations/V15__search.sql`):
//! a stored `tsvector` per row, written with the row, and a GIN index over it, so a search
//! reads one workspace's index and never another's. Queries take web-search syntax
//! (`websearch_to_tsquery`, which accepts any input: quotes, `or`, `-word`), matched against
//! each word as written and its English stem, ranked by `ts_rank_cd`, and a page's snippets are
//! cut by `ts_headline` for that page's rows only. Contacts are also found by trigrams, so part
//! of an address or a misspelt name finds them.
//!
//! - `request`: the query string, checked into a [`request::Search`].
//! - `record`: the statement and its rows.
//! - `highlight`: a snippet's marks made safe to show as HTML.
//! - `routes`: the handler.
//!
//! Visitors never search: the route is for members and API keys, behind the same rule as the
//! inbox.

mod highlight;
pub mod record;
pub mod request;
mod routes;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(routes::search))
        .require(
            state,
            Rule::members_or_api_key(Permission::HandleConversations),
        )
}
