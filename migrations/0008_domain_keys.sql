-- migrate: without a transaction
-- An alias is unique per domain, not across the deployment: the keys of links and of the tables
-- that name a link become (domain_id, code). The new unique indexes are built CONCURRENTLY while
-- the tables take reads and writes; then one short transaction swaps the keys. It needs an
-- exclusive lock on links for moments (no scan: every column is NOT NULL already), and asks for it
-- with a 200 ms lock_timeout, again and again, so that a long query on links never queues every
-- redirect's read behind the swap for longer than that. Every statement may run again.

CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS links_domain_code ON links (domain_id, code);
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS link_totals_domain_code ON link_totals (domain_id, code);
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS link_clicks_daily_domain_code_day ON link_clicks_daily (domain_id, code, day);
CREATE INDEX CONCURRENTLY IF NOT EXISTS idempotency_keys_by_link ON idempotency_keys (domain_id, code);
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS alias_log_version_domain_code ON alias_log (version, domain_id, code);

DO $$
DECLARE
  attempt integer := 0;
BEGIN
  IF (SELECT array_length(conkey, 1) FROM pg_constraint WHERE conname = 'links_pkey' AND conrelid = 'links'::regclass) = 2 THEN
    RETURN;
  END IF;
  LOOP
    BEGIN
      SET LOCAL lock_timeout = '200ms';
      LOCK TABLE links, link_totals, link_clicks_daily, idempotency_keys, alias_log IN ACCESS EXCLUSIVE MODE;
      ALTER TABLE link_totals DROP CONSTRAINT link_totals_code_fkey;
      ALTER TABLE link_clicks_daily DROP CONSTRAINT link_clicks_daily_code_fkey;
      ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_code_fkey;
      ALTER TABLE links DROP CONSTRAINT links_pkey, ADD CONSTRAINT links_pkey PRIMARY KEY USING INDEX links_domain_code;
      ALTER TABLE link_totals DROP CONSTRAINT link_totals_pkey, ADD CONSTRAINT link_totals_pkey PRIMARY KEY USING INDEX link_totals_domain_code;
      ALTER TABLE link_clicks_daily DROP CONSTRAINT link_clicks_daily_pkey,
        ADD CONSTRAINT link_clicks_daily_pkey PRIMARY KEY USING INDEX link_clicks_daily_domain_code_day;
      ALTER TABLE alias_log DROP CONSTRAINT alias_log_pkey, ADD CONSTRAINT alias_log_pkey PRIMARY KEY USING INDEX alias_log_version_domain_code;
      -- ON UPDATE CASCADE: moving a removed domain's links moves their totals, days and keys along.
      ALTER TABLE link_totals ADD CONSTRAINT link_totals_link_fkey FOREIGN KEY (domain_id, code)
        REFERENCES links (domain_id, code) ON DELETE CASCADE ON UPDATE CASCADE NOT VALID;
      ALTER TABLE link_clicks_daily ADD CONSTRAINT link_clicks_daily_link_fkey FOREIGN KEY (domain_id, code)
        REFERENCES links (domain_id, code) ON UPDATE CASCADE NOT VALID;
      ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_link_fkey FOREIGN KEY (domain_id, code)
        REFERENCES links (domain_id, code) ON UPDATE CASCADE NOT VALID;
      RETURN;
    EXCEPTION WHEN lock_not_available THEN
      attempt := attempt + 1;
      IF attempt >= 300 THEN
        RAISE;
      END IF;
      PERFORM pg_sleep(0.05);
    END;
  END LOOP;
END;
$$;

-- A scan under locks that let reads and writes go on.
ALTER TABLE links VALIDATE CONSTRAINT links_domain_fkey;
ALTER TABLE link_totals VALIDATE CONSTRAINT link_totals_link_fkey;
ALTER TABLE link_clicks_daily VALIDATE CONSTRAINT link_clicks_daily_link_fkey;
ALTER TABLE idempotency_keys VALIDATE CONSTRAINT idempotency_keys_link_fkey;

-- The list filters by domain within a workspace, newest first.
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_list_domain ON links (workspace_id, domain_id, created_at, code) WHERE NOT deleted;
ANALYZE links;
