//! A workspace's search language, in the index of its own schema.
//!
//! Each schema has two text search configurations (`tenant_migrations/V15__search.sql`):
//! `search_words` (every word as written) and `search_stems`, whose stemmer is the
//! workspace's language (English until an Owner picks another). Choosing a language remaps
//! `search_stems` to that language's Snowball stemmer and stop words: queries and new rows use
//! it at once, and [`reindex`] (the worker's `reindex_search` outbox message) writes every
//! existing row's stored `tsvector` again, a batch at a time, so older rows follow.

use serde::{Deserialize, Serialize};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::tenancy::TenantSchema;

/// The languages PostgreSQL stems (its Snowball dictionaries), and `simple`: words as
/// written, no stemming, no stop words (for a workspace whose customers write in many
/// languages).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, sqlx::Type)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum SearchLanguage {
    Simple,
    Arabic,
    Armenian,
    Basque,
    Catalan,
    Danish,
    Dutch,
    English,
    Finnish,
    French,
    German,
    Greek,
    Hindi,
    Hungarian,
    Indonesian,
    Irish,
    Italian,
    Lithuanian,
    Nepali,
    Norwegian,
    Portuguese,
    Romanian,
    Russian,
    Serbian,
    Spanish,
    Swedish,
    Tamil,
    Turkish,
    Yiddish,
}

impl SearchLanguage {
    /// The dictionary `search_stems` maps words to.
    pub fn dictionary(self) -> &'static str {
        match self {
            Self::Simple => "simple",
            Self::Arabic => "arabic_stem",
            Self::Armenian => "armenian_stem",
            Self::Basque => "basque_stem",
            Self::Catalan => "catalan_stem",
            Self::Danish => "danish_stem",
            Self::Dutch => "dutch_stem",
            Self::English => "english_stem",
            Self::Finnish => "finnish_stem",
            Self::French => "french_stem",
            Self::German => "german_stem",
            Self::Greek => "greek_stem",
            Self::Hindi => "hindi_stem",
            Self::Hungarian => "hungarian_stem",
            Self::Indonesian => "indonesian_stem",
            Self::Irish => "irish_stem",
            Self::Italian => "italian_stem",
            Self::Lithuanian => "lithuanian_stem",
            Self::Nepali => "nepali_stem",
            Self::Norwegian => "norwegian_stem",
            Self::Portuguese => "portuguese_stem",
            Self::Romanian => "romanian_stem",
            Self::Russian => "russian_stem",
            Self::Serbian => "serbian_stem",
            Self::Spanish => "spanish_stem",
            Self::Swedish => "swedish_stem",
            Self::Tamil => "tamil_stem",
            Self::Turkish => "turkish_stem",
            Self::Yiddish => "yiddish_stem",
        }
    }
}

/// Maps the schema's `search_stems` to `language` (in the caller's transaction): queries and
/// rows written from its commit on use it; older rows need [`reindex`].
pub async fn set_language(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    language: SearchLanguage,
) -> sqlx::Result<()> {
    // The dictionary is one of ours (`dictionary()`), never input.
    sqlx::raw_sql(schema.sql(&format!(
        "ALTER TEXT SEARCH CONFIGURATION {{schema}}.search_stems
             ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
             WITH public.unaccent, {}",
        language.dictionary()
    )))
    .execute(conn)
    .await?;
    Ok(())
}

/// The tables with a stored `search` column, and a column it is computed from: PostgreSQL
/// computes a stored generated column again only when an `UPDATE` sets a column it reads.
const INDEXED: [(&str, &str); 4] = [
    ("messages", "body"),
    ("conversations", "subject"),
    ("tickets", "subject"),
    ("contacts", "name"),
];

/// Writes every row's stored `tsvector` of workspace `workspace_id` again (an `UPDATE` that
/// sets a column it reads to itself), `batch` rows a statement, in id
/// order: short transactions, no long lock, and rows written meanwhile are right already. The
/// rows written; `None` when the workspace is gone.
pub async fn reindex(db: &PgPool, workspace_id: Uuid, batch: i64) -> sqlx::Result<Option<u64>> {
    let schema: Option<String> = sqlx::query_scalar(
        "SELECT schema_name FROM public.workspaces WHERE id = $1 AND status = 'active'",
    )
    .bind(workspace_id)
    .fetch_optional(db)
    .await?;
    let Some(schema) = schema else {
        return Ok(None);
    };
    let schema = TenantSchema::parse(&schema).map_err(|e| sqlx::Error::Decode(e.into()))?;
    let mut written = 0;
    for (table, source) in INDEXED {
        let mut after = Uuid::nil();
        loop {
            let (last, rows): (Option<Uuid>, i64) = sqlx::query_as(schema.sql(&format!(
                "WITH batch AS (
                     UPDATE {{schema}}.{table} SET {source} = {source}
                      WHERE id IN (SELECT id FROM {{schema}}.{table} WHERE id > $1
                                    ORDER BY id LIMIT $2)
                     RETURNING id)
                 SELECT (SELECT id FROM batch ORDER BY id DESC LIMIT 1),
                        (SELECT count(*) FROM batch)"
            )))
            .bind(after)
            .bind(batch)
            .fetch_one(db)
            .await?;
            let Some(last) = last else { break };
            written += u64::try_from(rows).unwrap_or(0);
            after = last;
        }
    }
    Ok(Some(written))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_read_as_postgresql_names_them() {
        let french: SearchLanguage = serde_json::from_str("\"french\"").unwrap();
        assert_eq!(french.dictionary(), "french_stem");
        assert_eq!(SearchLanguage::Simple.dictionary(), "simple");
        assert!(serde_json::from_str::<SearchLanguage>("\"klingon\"").is_err());
    }
}
