-- migrate: without a transaction
-- The click totals of existing links, and the link list's indexes (src/db/link-list.ts): one per way
-- the list is read, so that it stays fast with millions of links in a workspace. Without a
-- transaction (src/db/migrate.ts), so that the indexes are built CONCURRENTLY: links goes on taking
-- reads and writes while they build (README, "Upgrading": about a minute and a half per million
-- links, measured). Every statement may run again after a failed attempt.

INSERT INTO link_totals (code, workspace_id, clicks, bot_clicks)
  SELECT code, workspace_id, clicks, bot_clicks FROM links
  ON CONFLICT (code) DO NOTHING;

-- Deleted links are in none. Newest first (and by creator): keyset pages read them backwards from
-- (created_at, code).
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_list_created ON links (workspace_id, created_at, code) WHERE NOT deleted;
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_list_creator ON links (workspace_id, owner_key_id, created_at, code) WHERE NOT deleted;
-- States: disabled links, and links with an expiry (in creation order, and by the expiry itself).
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_list_disabled ON links (workspace_id, created_at, code) WHERE disabled AND NOT deleted;
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_list_expiring ON links (workspace_id, created_at, code)
  WHERE expires_at IS NOT NULL AND NOT disabled AND NOT deleted;
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_list_expiry ON links (workspace_id, expires_at)
  WHERE expires_at IS NOT NULL AND NOT disabled AND NOT deleted;
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_list_tags ON links USING gin (tags) WHERE NOT deleted;
-- Search: a case-insensitive substring of the code, the target or the title, by trigrams. In the
-- database's collation, not the code's "C", which folds the case of ASCII letters only.
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_list_search ON links
  USING gin (((code || E'\n' || url || E'\n' || coalesce(title, '')) COLLATE "default") gin_trgm_ops) WHERE NOT deleted;
-- The planner estimates how many links a search matches from statistics of the searched text. A
-- partial index's own are not used, and without these it guesses by the term's length alone: a
-- common word then sorted every match, a missing one scanned every link (seconds at a million).
CREATE STATISTICS IF NOT EXISTS links_list_search_text
  ON ((code || E'\n' || url || E'\n' || coalesce(title, '')) COLLATE "default") FROM links;
-- Most clicked first.
CREATE INDEX CONCURRENTLY IF NOT EXISTS link_totals_by_clicks ON link_totals (workspace_id, clicks, code);

ANALYZE links;
ANALYZE link_totals;
