-- migrate: without a transaction
-- Scheduled links and lifecycle (docs/api.md#scheduled-links). A link's own expired fallback is one of
-- its options (options.expiredUrl) and needs no column.
--
-- archived_at: when the link was archived; null: not. An archived link keeps redirecting and leaves the
-- default list: the list's indexes gain twins for the links that are not archived (the default list,
-- newest first and by creator), and one for the archived ones (archived=only). The old
-- links_list_created and links_list_creator stay, for archived=include.
-- expiring_announced: link.expiring was written for the link's current expiry (the webhook worker's
-- sweep sets it; a new expiresAt clears it, as it clears expiry_announced); links_expiring_due finds
-- the links due, as links_expiry_due does for link.expired.
-- Nullable columns, and a boolean with a constant default, rewrite nothing; instances of the release
-- before never read them. The indexes are built CONCURRENTLY, so that links goes on taking reads and
-- writes meanwhile. Every statement may run again after a failed attempt.
ALTER TABLE links ADD COLUMN IF NOT EXISTS archived_at timestamptz;
ALTER TABLE links ADD COLUMN IF NOT EXISTS expiring_announced boolean NOT NULL DEFAULT false;
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_list_live ON links (workspace_id, created_at, code)
  WHERE archived_at IS NULL AND NOT deleted;
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_list_live_creator ON links (workspace_id, owner_key_id, created_at, code)
  WHERE archived_at IS NULL AND NOT deleted;
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_list_archived ON links (workspace_id, created_at, code)
  WHERE archived_at IS NOT NULL AND NOT deleted;
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_expiring_due ON links (expires_at)
  WHERE expires_at IS NOT NULL AND NOT expiring_announced AND NOT deleted;
