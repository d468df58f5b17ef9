-- Domain verification (src/domains/verification.ts, docs/operations.md "Domains: DNS, TLS and
-- verification"). A workspace's domain is served only once its DNS holds a TXT record
-- `_shortener.<host>` with the domain's token: `pending` until then (serves nothing, but no other
-- workspace may claim the host until the claim expires), `verified` once found, `failing` when a
-- re-check no longer finds it (still served for a grace of checks, then `pending` again).
--
-- Upgrade: the domains that exist are live, with links on them, and stay served: they become
-- `verified` with a fresh token, and the first periodic check flags them `failing` (then stops them
-- after the grace) unless the workspace publishes the record shown by GET /domains. Quick: the
-- table holds one row per domain.

ALTER TABLE domains
  ADD COLUMN verification_token text,
  ADD COLUMN verification_status text NOT NULL DEFAULT 'verified',
  ADD COLUMN verified_at timestamptz,
  ADD COLUMN last_checked_at timestamptz,
  ADD COLUMN check_failures integer NOT NULL DEFAULT 0,
  ADD CONSTRAINT domains_verification_status CHECK (verification_status IN ('pending', 'verified', 'failing')),
  ADD CONSTRAINT domains_verification_token_shape CHECK (verification_token ~ '^[A-Za-z0-9_-]{16,64}$');

UPDATE domains SET verification_token = replace(gen_random_uuid()::text, '-', ''), verified_at = created_at WHERE id <> 0;

-- A domain added from now on (by this release, or by an instance of the release before during a
-- rolling upgrade) waits for its record.
ALTER TABLE domains
  ALTER COLUMN verification_status SET DEFAULT 'pending',
  ALTER COLUMN verification_token SET DEFAULT replace(gen_random_uuid()::text, '-', '');

-- The periodic re-check claims the domains checked longest ago.
CREATE INDEX domains_by_last_check ON domains (last_checked_at NULLS FIRST) WHERE id <> 0;
