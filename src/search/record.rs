//! The search statement and its rows.
//!
//! One statement for any mix of types: a branch per type, each the best `limit + 1` rows of its
//! own GIN index by rank, after the cursor; their union cut to `limit + 1` in the page's order
//! (rank, then type, then id, all descending); and only then the snippets, for the rows of the
//! page. The cursor is the last row's (rank, type, id): ranks are recomputed identically from
//! the stored `tsvector`s, so a page follows the previous one exactly.

use serde::{Deserialize, Serialize};
use sqlx::{FromRow, PgConnection, Postgres, QueryBuilder};
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::inbox::text::contains_pattern;
use crate::pagination::Page;
use crate::search::highlight;
use crate::search::request::{Filters, Search, SearchType};

/// What a result is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum HitType {
    Conversation,
    Message,
    Ticket,
    Contact,
}

impl HitType {
    fn as_str(self) -> &'static str {
        match self {
            Self::Conversation => "conversation",
            Self::Message => "message",
            Self::Ticket => "ticket",
            Self::Contact => "contact",
        }
    }
}

/// One result.
#[derive(Debug, Clone, Serialize, FromRow, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    #[serde(rename = "type")]
    #[sqlx(rename = "kind")]
    #[schema(inline)]
    pub kind: HitType,
    /// The conversation's, message's, ticket's or contact's id.
    pub id: Uuid,
    /// The conversation to open: the conversation itself, a message's, or the one a ticket
    /// came from; absent for contacts and for tickets opened on their own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<Uuid>,
    /// What to call the result: the subject, or the contact's name or address.
    pub title: String,
    /// A snippet of the matching text, as HTML whose only element is `<mark>` around each
    /// matched word (everything else escaped).
    #[schema(example = "Could I get a <mark>refund</mark> for order 1042?")]
    pub highlight: String,
    /// Relevance: higher is better; results come best first.
    pub rank: f32,
    /// When the conversation, message, ticket or contact was created.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

/// A result's place in the order: rank, type, id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HitKey(pub f32, pub String, pub Uuid);

/// The rows of one type, with the same columns in each branch.
struct Branch {
    kind: HitType,
    /// `FROM` and the join conditions; the text search query is `q.query`.
    from: &'static str,
    /// The row's `tsvector`, for the match and the rank.
    vector: &'static str,
    id: &'static str,
    conversation_id: &'static str,
    title: &'static str,
    created_at: &'static str,
    /// The text the snippet is cut from.
    document: &'static str,
    /// Column names for the filters; `None` where the type has no such field.
    status: Option<&'static str>,
    assignee: Option<&'static str>,
    channel: Option<&'static str>,
    priority: Option<&'static str>,
    /// The conversation the row belongs to, for the label filter.
    conversation: Option<&'static str>,
}

const CONVERSATIONS: Branch = Branch {
    kind: HitType::Conversation,
    from: "{schema}.conversations c JOIN {schema}.contacts ct ON ct.id = c.contact_id",
    vector: "c.search",
    id: "c.id",
    conversation_id: "c.id",
    title: "coalesce(nullif(c.subject, ''), ct.name, ct.email)",
    created_at: "c.created_at",
    document: "coalesce(c.subject, '')",
    status: Some("c.status"),
    assignee: Some("c.assignee_id"),
    channel: Some("c.channel"),
    priority: Some("c.priority"),
    conversation: Some("c.id"),
};

const MESSAGES: Branch = Branch {
    kind: HitType::Message,
    from: "{schema}.messages m JOIN {schema}.conversations c ON c.id = m.conversation_id
           JOIN {schema}.contacts ct ON ct.id = c.contact_id",
    vector: "m.search",
    id: "m.id",
    conversation_id: "m.conversation_id",
    title: "coalesce(nullif(c.subject, ''), ct.name, ct.email)",
    created_at: "m.created_at",
    document: "m.body",
    status: Some("c.status"),
    assignee: Some("c.assignee_id"),
    channel: Some("c.channel"),
    priority: Some("c.priority"),
    conversation: Some("c.id"),
};

const TICKETS: Branch = Branch {
    kind: HitType::Ticket,
    from: "{schema}.tickets t",
    vector: "t.search",
    id: "t.id",
    conversation_id: "t.conversation_id",
    title: "t.subject",
    created_at: "t.created_at",
    document: "t.subject || E'\\n' || coalesce(t.description, '')",
    status: Some("t.status"),
    assignee: Some("t.assignee_id"),
    channel: None,
    priority: Some("t.priority"),
    conversation: None,
};

/// A contact's name and address, as the trigram index holds them.
const CONTACT_TEXT: &str = "(coalesce(ct.name, '') || ' ' || ct.email)";

/// Contacts take no filter (the request leaves them out when one is given); they are also
/// found by trigrams (below).
const CONTACTS: Branch = Branch {
    kind: HitType::Contact,
    from: "{schema}.contacts ct",
    vector: "ct.search",
    id: "ct.id",
    conversation_id: "NULL::uuid",
    title: "coalesce(ct.name, ct.email)",
    created_at: "ct.created_at",
    document: CONTACT_TEXT,
    status: None,
    assignee: None,
    channel: None,
    priority: None,
    conversation: None,
};

fn branch(kind: SearchType) -> &'static Branch {
    match kind {
        SearchType::Conversations => &CONVERSATIONS,
        SearchType::Messages => &MESSAGES,
        SearchType::Tickets => &TICKETS,
        SearchType::Contacts => &CONTACTS,
    }
}

fn push_filters(
    query: &mut QueryBuilder<Postgres>,
    schema: &TenantSchema,
    branch: &Branch,
    filters: &Filters,
) {
    if let (Some(column), Some(status)) = (branch.status, filters.status) {
        query
            .push(format_args!(" AND {column} = "))
            .push_bind(status);
    }
    if let Some(column) = branch.assignee {
        filters.assignee.push_condition(query, column);
    }
    if let (Some(column), Some(channel)) = (branch.channel, filters.channel) {
        query
            .push(format_args!(" AND {column} = "))
            .push_bind(channel);
    }
    if let (Some(column), Some(priority)) = (branch.priority, filters.priority) {
        query
            .push(format_args!(" AND {column} = "))
            .push_bind(priority);
    }
    if let (Some(column), Some(label)) = (branch.conversation, filters.label) {
        let sqlx::AssertSqlSafe(labelled) = schema.sql(&format!(
            " AND EXISTS (SELECT 1 FROM {{schema}}.conversation_labels fl
                           WHERE fl.conversation_id = {column} AND fl.label_id = "
        ));
        query.push(labelled).push_bind(label).push(")");
    }
    if let Some(after) = filters.created_after {
        query
            .push(format_args!(" AND {} >= ", branch.created_at))
            .push_bind(after);
    }
    if let Some(before) = filters.created_before {
        query
            .push(format_args!(" AND {} < ", branch.created_at))
            .push_bind(before);
    }
}

fn push_branch(
    query: &mut QueryBuilder<Postgres>,
    schema: &TenantSchema,
    branch: &Branch,
    search: &Search,
    page: &Page<HitKey>,
) {
    let kind = branch.kind.as_str();
    let rank = if branch.kind == HitType::Contact {
        // The better of the words' rank and the trigram similarity to the whole query.
        format!(
            "greatest(ts_rank_cd({vector}, q.query), public.word_similarity(",
            vector = branch.vector
        )
    } else {
        format!("ts_rank_cd({vector}, q.query", vector = branch.vector)
    };
    query.push(format_args!(
        "(SELECT '{kind}'::text AS kind, {id} AS id, {conversation_id} AS conversation_id,
                 {title} AS title, {created_at} AS created_at, {document} AS document, ",
        id = branch.id,
        conversation_id = branch.conversation_id,
        title = branch.title,
        created_at = branch.created_at,
        document = branch.document,
    ));
    // The rank expression, written out again for the cursor's condition.
    let push_rank = |query: &mut QueryBuilder<Postgres>| {
        query.push(&rank);
        if branch.kind == HitType::Contact {
            query
                .push_bind(search.words.clone())
                .push(format_args!(", {CONTACT_TEXT}))"));
        } else {
            query.push(")");
        }
    };
    push_rank(query);
    let sqlx::AssertSqlSafe(from) = schema.sql(&format!(
        " AS rank FROM {from}, q WHERE ({vector} @@ q.query",
        from = branch.from,
        vector = branch.vector,
    ));
    query.push(from);
    if branch.kind == HitType::Contact {
        query
            .push(format_args!(" OR {CONTACT_TEXT} ILIKE "))
            .push_bind(contains_pattern(&search.words))
            .push(" OR ")
            .push_bind(search.words.clone())
            .push(format_args!(" OPERATOR(public.<%) {CONTACT_TEXT}"));
    }
    query.push(")");
    push_filters(query, schema, branch, &search.filters);
    if let Some(HitKey(rank, after_kind, id)) = &page.after {
        query.push(" AND (");
        push_rank(query);
        query
            .push(format_args!(", '{kind}'::text, {}) < (", branch.id))
            .push_bind(*rank)
            .push("::real, ")
            .push_bind(after_kind.clone())
            .push(", ")
            .push_bind(*id)
            .push(")");
    }
    query
        .push(" ORDER BY rank DESC, id DESC LIMIT ")
        .push_bind(page.fetch())
        .push(")");
}

/// Appends the search statement to `query`.
fn push_search_query(
    query: &mut QueryBuilder<Postgres>,
    schema: &TenantSchema,
    search: &Search,
    page: &Page<HitKey>,
) {
    let sqlx::AssertSqlSafe(words_config) =
        schema.sql("WITH q AS (SELECT websearch_to_tsquery('{schema}.search_words', ");
    query.push(words_config).push_bind(search.words.clone());
    let sqlx::AssertSqlSafe(stems_config) =
        schema.sql(") || websearch_to_tsquery('{schema}.search_stems', ");
    query.push(stems_config).push_bind(search.words.clone());
    let sqlx::AssertSqlSafe(select) = schema.sql(
        ") AS query)
         SELECT h.kind, h.id, h.conversation_id, h.title, h.created_at, h.rank,
                ts_headline('{schema}.search_stems', translate(h.document, ",
    );
    query
        .push(select)
        .push_bind(format!("{}{}", highlight::START, highlight::STOP))
        .push(", ''), q.query, ")
        .push_bind(highlight::OPTIONS)
        .push(") AS highlight FROM (SELECT * FROM (");
    for (n, kind) in search.kinds.iter().enumerate() {
        if n > 0 {
            query.push(" UNION ALL ");
        }
        push_branch(query, schema, branch(*kind), search, page);
    }
    query
        .push(") u ORDER BY u.rank DESC, u.kind DESC, u.id DESC LIMIT ")
        .push_bind(page.fetch())
        .push(") h, q ORDER BY h.rank DESC, h.kind DESC, h.id DESC");
}

/// A page of results and the cursor of the next one.
pub async fn search(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    search: &Search,
    page: &Page<HitKey>,
) -> sqlx::Result<(Vec<SearchHit>, Option<String>)> {
    if search.kinds.is_empty() {
        return Ok((Vec::new(), None));
    }
    let mut query = QueryBuilder::new("");
    push_search_query(&mut query, schema, search, page);
    let mut rows: Vec<SearchHit> = query.build_query_as().fetch_all(conn).await?;
    for row in &mut rows {
        row.highlight = highlight::to_html(&row.highlight);
    }
    Ok(page.finish(rows, |h: &SearchHit| {
        HitKey(h.rank, h.kind.as_str().to_owned(), h.id)
    }))
}
