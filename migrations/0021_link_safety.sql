-- migrate: without a transaction
-- Links whose target a blocklist gained after they were made (docs/security.md#destination-blocklists).
--
-- safety: null for a link nobody acted on; 'blocked' (its redirect answers 451 LINK_BLOCKED) or
-- 'flagged' (its redirect is a warning page first), with the list that said so in safety_list.
-- target_domains: the registrable domains of every URL the link can send someone to (its url, its
-- rules' and its split's), so that a list's new entry finds the links it names through the GIN index
-- instead of a scan of every link; null for a row made before this migration, until the backfill
-- (links/target-index.ts) has read it. Nullable columns without defaults rewrite nothing; instances of
-- the release before never read them. The indexes are built CONCURRENTLY, so that links goes on
-- taking reads and writes meanwhile. Every statement may run again after a failed attempt.
ALTER TABLE links ADD COLUMN IF NOT EXISTS safety text;
ALTER TABLE links ADD COLUMN IF NOT EXISTS safety_list text;
ALTER TABLE links ADD COLUMN IF NOT EXISTS target_domains text[];
-- The values of safety, checked without a scan of links under its exclusive lock: added NOT VALID
-- (new rows are checked at once), then validated under a lock that lets reads and writes go on.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'links_safety_values' AND conrelid = 'links'::regclass) THEN
    ALTER TABLE links ADD CONSTRAINT links_safety_values CHECK (safety IN ('blocked', 'flagged')) NOT VALID;
  END IF;
END $$;
ALTER TABLE links VALIDATE CONSTRAINT links_safety_values;
-- fastupdate off: each create writes its keys into the index itself, a few entries; with a pending
-- list, the create that happens to fill it (4 MB) would merge all of it, a stall of seconds in a
-- group commit (seen as DATABASE_TIMEOUT while load/run.ts seeded 100,000 links).
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_target_domains ON links USING gin (target_domains) WITH (fastupdate = off) WHERE NOT deleted;
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_targets_unread ON links (domain_id, code) WHERE target_domains IS NULL AND NOT deleted;
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_list_unsafe ON links (workspace_id, created_at, code) WHERE safety IS NOT NULL AND NOT deleted;
-- The deployment's own list, kept by its operators (an abuse report's "block its target's domain"):
-- read like a configured list named "operator", with the same matching. entry: a host (it and its
-- subdomains) or a URL (http(s), exactly), as normalised by core/blocklist/entries.ts.
CREATE TABLE IF NOT EXISTS operator_blocklist (
  entry      text        PRIMARY KEY CHECK (char_length(entry) BETWEEN 1 AND 2048),
  reason     text        CHECK (char_length(reason) <= 500),
  added_by   bigint      REFERENCES people (id),
  added_at   timestamptz NOT NULL DEFAULT now()
);
