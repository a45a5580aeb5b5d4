//! The search statement and its rows.
//!
//! One statement for any mix of types, planned for its words ([`push_candidates`]): a branch
//! per type, each ranking its newest matches and keeping the best `limit + 1` after the cursor; their union cut to `limit + 1` in the page's order
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
    /// The table searched and its alias; what it is joined with when a filter reads another
    /// table's columns (only then: a join per candidate is most of a walk's cost).
    table: &'static str,
    alias: &'static str,
    filter_joins: &'static str,
    /// The table's newest rows first, in one of its indexes; `None` for contacts, which are
    /// few and found by three indexes of their own.
    newest: Option<&'static str>,
    /// The row's `tsvector`, for the match and the rank.
    vector: &'static str,
    id: &'static str,
    conversation_id: &'static str,
    /// What to call a result, from `tt` and `tct` joined (`title_joins`) to the branch's
    /// ranked rows `b`: joined for the rows of the page only.
    title_joins: &'static str,
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
    table: "{schema}.conversations",
    alias: "c",
    filter_joins: "",
    newest: Some("c.created_at DESC, c.id DESC"),
    vector: "c.search",
    id: "c.id",
    conversation_id: "c.id",
    title_joins: " JOIN {schema}.conversations tt ON tt.id = b.id
                   JOIN {schema}.contacts tct ON tct.id = tt.contact_id",
    title: "coalesce(nullif(tt.subject, ''), tct.name, tct.email)",
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
    table: "{schema}.messages",
    alias: "m",
    filter_joins: " JOIN {schema}.conversations c ON c.id = m.conversation_id",
    newest: Some("m.created_at DESC, m.id DESC"),
    vector: "m.search",
    id: "m.id",
    conversation_id: "m.conversation_id",
    title_joins: " JOIN {schema}.conversations tt ON tt.id = b.conversation_id
                   JOIN {schema}.contacts tct ON tct.id = tt.contact_id",
    title: "coalesce(nullif(tt.subject, ''), tct.name, tct.email)",
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
    table: "{schema}.tickets",
    alias: "t",
    filter_joins: "",
    newest: Some("t.number DESC"),
    vector: "t.search",
    id: "t.id",
    conversation_id: "t.conversation_id",
    title_joins: " JOIN {schema}.tickets tt ON tt.id = b.id",
    title: "tt.subject",
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
    table: "{schema}.contacts",
    alias: "ct",
    filter_joins: "",
    newest: None,
    vector: "ct.search",
    id: "ct.id",
    conversation_id: "NULL::uuid",
    title_joins: " JOIN {schema}.contacts tct ON tct.id = b.id",
    title: "coalesce(tct.name, tct.email)",
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

/// Matches of one type a search ranks at most: the newest this many (after the filters). A
/// word in every tenth message matches a hundred thousand of a million; ranking them all
/// would read them all, while the newest thousand are what people look for.
pub const CANDIDATES: i64 = 1000;
/// How many of a table's newest rows a phrase search reads first, walking an index
/// backwards, before it looks the phrase's words up in the GIN index (see
/// [`push_candidates`]).
pub const PHRASE_WALK_ROWS: i64 = 10_000;

/// The candidates' columns, from a branch's rows.
fn candidate_columns(branch: &Branch) -> String {
    format!(
        "{id} AS id, {conversation_id} AS conversation_id, {created_at} AS created_at,
         {document} AS document, {vector} AS vector",
        id = branch.id,
        conversation_id = branch.conversation_id,
        created_at = branch.created_at,
        document = branch.document,
        vector = branch.vector,
    )
}

/// The newest [`CANDIDATES`] matches of a branch. The statement is planned for its words
/// (`Tenant::planned_read`), so the planner knows from the column's statistics how often
/// each word occurs: a common word is found by walking the newest rows until enough match,
/// a rare one is looked up in the GIN index and its few matches sorted. A phrase is the
/// exception: the planner estimates it as often as its words together, far more often
/// than the phrase itself when the words are common, and would walk the whole table
/// looking for matches that are not there. A phrase (`q.phrase`, known when the statement
/// is planned, so only one of the two forms below runs) walks at most
/// [`PHRASE_WALK_ROWS`] newest rows; when they hold fewer than [`CANDIDATES`] matches, it
/// reads all of them through the GIN index (the words' rows, re-checked for the phrase),
/// fenced (`OFFSET 0`) so that no plan can turn that into a walk again.
fn push_candidates(
    query: &mut QueryBuilder<Postgres>,
    schema: &TenantSchema,
    branch: &Branch,
    newest: &str,
    search: &Search,
) {
    let columns = candidate_columns(branch);
    let &Branch {
        table,
        alias,
        vector,
        ..
    } = branch;
    let joins = if search.filters.any() {
        branch.filter_joins
    } else {
        ""
    };
    // Each part ends with the rows' condition, which the filters extend.
    let mut part_then_filters = |sql: String| {
        let sqlx::AssertSqlSafe(sql) = schema.sql(&sql);
        query.push(sql);
        push_filters(query, schema, branch, &search.filters);
    };
    part_then_filters(format!(
        "((SELECT {columns} FROM {table} {alias}{joins}, q
            WHERE NOT q.phrase AND {vector} @@ q.query"
    ));
    part_then_filters(format!(
        " ORDER BY {newest} LIMIT {CANDIDATES})
          UNION ALL
          (WITH walk AS MATERIALIZED (
              SELECT {columns}
                FROM (SELECT * FROM {table} {alias} ORDER BY {newest} LIMIT {PHRASE_WALK_ROWS})
                     {alias}{joins}, q
               WHERE q.phrase AND {vector} @@ q.query"
    ));
    part_then_filters(format!(
        " LIMIT {CANDIDATES})
          SELECT * FROM walk WHERE (SELECT count(*) FROM walk) >= {CANDIDATES}
          UNION ALL
          (SELECT * FROM (SELECT {columns} FROM {table} {alias}{joins}, q
                           WHERE q.phrase AND (SELECT count(*) FROM walk) < {CANDIDATES}
                             AND {vector} @@ q.query"
    ));
    query.push(format_args!(
        " OFFSET 0) f ORDER BY f.created_at DESC, f.id DESC LIMIT {CANDIDATES})))"
    ));
}

/// A contact's candidates: each way of finding one by its own index, rather than one `OR`
/// that no index answers: the words (GIN on `search`), part of the text and a misspelling
/// (trigrams). Each lookup reads `q` itself, so none is correlated with the contacts joined.
fn push_contact_candidates(
    query: &mut QueryBuilder<Postgres>,
    schema: &TenantSchema,
    branch: &Branch,
    search: &Search,
) {
    let sqlx::AssertSqlSafe(by_words) = schema.sql(&format!(
        "(SELECT {columns}
            FROM (SELECT w.id FROM {{schema}}.contacts w, q WHERE w.search @@ q.query
                  UNION SELECT p.id FROM {{schema}}.contacts p WHERE {part} ILIKE ",
        columns = candidate_columns(branch),
        part = CONTACT_TEXT.replace("ct.", "p."),
    ));
    let sqlx::AssertSqlSafe(by_trigrams) = schema.sql(
        " UNION SELECT s.id FROM {schema}.contacts s
                 WHERE (coalesce(s.name, '') || ' ' || s.email) OPERATOR(public.%>) ",
    );
    let sqlx::AssertSqlSafe(joined) = schema.sql(&format!(
        ") found JOIN {{schema}}.contacts ct ON ct.id = found.id
           ORDER BY ct.created_at DESC, ct.id DESC LIMIT {CANDIDATES})"
    ));
    query
        .push(by_words)
        .push_bind(contains_pattern(&search.words))
        .push(by_trigrams)
        .push_bind(search.words.clone())
        .push(joined);
}

fn push_branch(
    query: &mut QueryBuilder<Postgres>,
    schema: &TenantSchema,
    branch: &Branch,
    search: &Search,
    page: &Page<HitKey>,
) {
    let kind = branch.kind.as_str();
    query.push(format_args!(
        "(SELECT '{kind}'::text AS kind, b.id, b.conversation_id, {title} AS title,
                 b.created_at, b.document, b.rank
            FROM (SELECT * FROM (SELECT a.*, ",
        title = branch.title,
    ));
    // The rank, computed for the candidates only.
    if branch.kind == HitType::Contact {
        // The better of the words' rank and the trigram similarity to the whole query.
        query
            .push("greatest(ts_rank_cd(a.vector, q.query), public.word_similarity(")
            .push_bind(search.words.clone())
            .push(", a.document))");
    } else {
        query.push("ts_rank_cd(a.vector, q.query)");
    }
    query.push(" AS rank FROM q, ");
    match branch.newest {
        Some(newest) => push_candidates(query, schema, branch, newest, search),
        None => push_contact_candidates(query, schema, branch, search),
    }
    query.push(" a) b WHERE true");
    if let Some(HitKey(rank, after_kind, id)) = &page.after {
        query
            .push(format_args!(" AND (b.rank, '{kind}'::text, b.id) < ("))
            .push_bind(*rank)
            .push("::real, ")
            .push_bind(after_kind.clone())
            .push(", ")
            .push_bind(*id)
            .push(")");
    }
    let sqlx::AssertSqlSafe(titles) = schema.sql(branch.title_joins);
    query
        .push(" ORDER BY b.rank DESC, b.id DESC LIMIT ")
        .push_bind(page.fetch())
        .push(") b")
        .push(titles)
        .push(")");
}

/// Appends the search statement to `query`. Public so that the benchmark can `EXPLAIN`
/// exactly what the handler runs.
pub fn push_search_query(
    query: &mut QueryBuilder<Postgres>,
    schema: &TenantSchema,
    search: &Search,
    page: &Page<HitKey>,
) {
    // `q`: the words as written or stemmed (one query when both read the same, so that the
    // planner does not count a word twice), and whether it holds a phrase. Not materialized:
    // planned for its values, it folds to constants the planner can estimate.
    let sqlx::AssertSqlSafe(words_config) = schema.sql(
        "WITH q AS NOT MATERIALIZED (
             SELECT w.query, strpos(w.query::text, '<') > 0 AS phrase
               FROM (SELECT CASE WHEN x.words = x.stems THEN x.words
                                 ELSE x.words || x.stems END AS query
                       FROM (SELECT websearch_to_tsquery('{schema}.search_words', ",
    );
    query.push(words_config).push_bind(search.words.clone());
    let sqlx::AssertSqlSafe(stems_config) =
        schema.sql(") AS words, websearch_to_tsquery('{schema}.search_stems', ");
    query.push(stems_config).push_bind(search.words.clone());
    let sqlx::AssertSqlSafe(select) = schema.sql(
        ") AS stems) x) w)
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
