-- Search inside each workspace's schema needs two contrib extensions, installed once per
-- database in `public` (both are trusted: the database's owner may create them without being
-- a superuser). Tenant statements name them `public.` since pooled sessions have an empty
-- search_path. On Citus the coordinator creates them on every node.
--
-- - unaccent: a filtering dictionary, so "José" and "jose" index and match alike.
-- - pg_trgm: trigram indexes, so a misspelt name or part of an email finds a contact.
CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public;
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
