-- migrate: without a transaction
-- When a link starts redirecting (core/link.ts startsAt): before it, a redirect answers 404
-- LINK_NOT_YET_ACTIVE. A nullable column without a default rewrites nothing; instances of the release
-- before never read it. The list's filters state=scheduled and state=limit_reached read the links
-- that have a start, and those that have a click limit, through indexes of their own (small: few
-- links have either), built CONCURRENTLY so that links goes on taking reads and writes meanwhile
-- (each reads the table once). Every statement may run again after a failed attempt.
ALTER TABLE links ADD COLUMN IF NOT EXISTS starts_at timestamptz;
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_list_starting ON links (workspace_id, created_at, code)
  WHERE starts_at IS NOT NULL AND NOT disabled AND NOT deleted;
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_list_limited ON links (workspace_id, created_at, code)
  WHERE options ? 'clickLimit' AND NOT disabled AND NOT deleted;
