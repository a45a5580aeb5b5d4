-- Full-text search over the workspace's conversations, messages (notes included), tickets and
-- contacts, indexed in the workspace's own schema: each index holds one workspace's words, so
-- it stays small, nothing crosses tenants, and it moves with the schema (Citus).
--
-- Two text search configurations of this schema, both folding accents (`public.unaccent`):
-- `search_words` keeps each word as written (names, codes, any language), `search_stems`
-- reduces it to its English stem ("refunds" and "refunded" to "refund") and drops English
-- stop words. A document is indexed with both, and a query matches either, so an exact word
-- and its variants both find it. Every index below is a stored generated column: written with
-- the row, in its transaction, and never out of date.
CREATE TEXT SEARCH CONFIGURATION search_words (COPY = pg_catalog.simple);
ALTER TEXT SEARCH CONFIGURATION search_words
    ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
    WITH public.unaccent, simple;
CREATE TEXT SEARCH CONFIGURATION search_stems (COPY = pg_catalog.english);
ALTER TEXT SEARCH CONFIGURATION search_stems
    ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
    WITH public.unaccent, english_stem;

ALTER TABLE messages ADD COLUMN search tsvector GENERATED ALWAYS AS (
    to_tsvector('search_words', body) || to_tsvector('search_stems', body)
) STORED;
CREATE INDEX messages_search ON messages USING gin (search);

ALTER TABLE conversations ADD COLUMN search tsvector GENERATED ALWAYS AS (
    to_tsvector('search_words', coalesce(subject, ''))
        || to_tsvector('search_stems', coalesce(subject, ''))
) STORED;
CREATE INDEX conversations_search ON conversations USING gin (search);

-- The subject weighs more than the description.
ALTER TABLE tickets ADD COLUMN search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('search_words', subject) || to_tsvector('search_stems', subject), 'A')
        || setweight(to_tsvector('search_words', coalesce(description, ''))
            || to_tsvector('search_stems', coalesce(description, '')), 'B')
) STORED;
CREATE INDEX tickets_search ON tickets USING gin (search);

-- A contact by the words of their name and their whole address, and by trigrams of both
-- (`public.gin_trgm_ops`): part of an address ("shop.exa") or a misspelt name ("Karla") finds
-- them too.
ALTER TABLE contacts ADD COLUMN search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('search_words', coalesce(name, '')), 'A')
        || setweight(to_tsvector('search_words', email), 'B')
) STORED;
CREATE INDEX contacts_search ON contacts USING gin (search);
CREATE INDEX contacts_trigrams
    ON contacts USING gin ((coalesce(name, '') || ' ' || email) public.gin_trgm_ops);
