-- A link's options beyond its URL (core/link-options.ts): redirect status, query forwarding,
-- targets by rule, an A/B split. NULL for a plain link, which stays one prebuilt redirect. Adding
-- a nullable column without a default rewrites nothing; instances of the release before never read it.
ALTER TABLE links ADD COLUMN IF NOT EXISTS options jsonb;
