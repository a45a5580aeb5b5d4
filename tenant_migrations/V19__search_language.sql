-- The workspace's search language: the stemmer and stop words of its `search_stems` text
-- search configuration (V15), which an Owner chooses (`PATCH /api/settings`). The column
-- says what the configuration was last set to; the worker then writes every stored search
-- vector again (`reindex_search`).
ALTER TABLE settings ADD COLUMN search_language text NOT NULL DEFAULT 'english' CHECK (
    search_language IN ('simple', 'arabic', 'armenian', 'basque', 'catalan', 'danish', 'dutch',
        'english', 'finnish', 'french', 'german', 'greek', 'hindi', 'hungarian', 'indonesian',
        'irish', 'italian', 'lithuanian', 'nepali', 'norwegian', 'portuguese', 'romanian',
        'russian', 'serbian', 'spanish', 'swedish', 'tamil', 'turkish', 'yiddish'));
