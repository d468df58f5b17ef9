-- migrate: without a transaction
-- link_clicks_daily becomes partitioned by month, as the rollups are (0009), so that the same
-- retention drops its old months at once. The table as it is becomes the partition of every day
-- before the month after next; a CHECK proves it, validated first under a lock that lets clicks be
-- written, so that the swap scans nothing. The swap renames the table, creates the partitioned one
-- under the old name and attaches the old one: it asks for its locks with a 200 ms lock_timeout,
-- again and again, and holds them for moments. Redirects never read this table; instances of the
-- release before go on writing their clicks into it by name. Every statement may run again.

DO $$
BEGIN
  IF to_regclass('link_clicks_daily_before') IS NULL
     AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'link_clicks_daily_before_bound') THEN
    EXECUTE format('ALTER TABLE link_clicks_daily ADD CONSTRAINT link_clicks_daily_before_bound CHECK (day < %L) NOT VALID',
      (date_trunc('month', now()) + interval '2 months')::date);
  END IF;
END;
$$;

DO $$
BEGIN
  IF to_regclass('link_clicks_daily_before') IS NULL THEN
    ALTER TABLE link_clicks_daily VALIDATE CONSTRAINT link_clicks_daily_before_bound;
  END IF;
END;
$$;

DO $$
DECLARE
  attempt integer := 0;
  bound text;
BEGIN
  IF to_regclass('link_clicks_daily_before') IS NOT NULL THEN
    RETURN;
  END IF;
  SELECT substring(pg_get_constraintdef(oid) FROM '''([0-9-]+)''') INTO bound
  FROM pg_constraint WHERE conname = 'link_clicks_daily_before_bound';
  LOOP
    BEGIN
      SET LOCAL lock_timeout = '200ms';
      LOCK TABLE link_clicks_daily IN ACCESS EXCLUSIVE MODE;
      LOCK TABLE links IN SHARE ROW EXCLUSIVE MODE;
      ALTER TABLE link_clicks_daily RENAME TO link_clicks_daily_before;
      ALTER TABLE link_clicks_daily_before RENAME CONSTRAINT link_clicks_daily_pkey TO link_clicks_daily_before_pkey;
      -- The columns in the old table's order; the key and the foreign key as the old table has them,
      -- so that attaching it reuses its index and its foreign key instead of building them again.
      CREATE TABLE link_clicks_daily (
        code       text   COLLATE "C" NOT NULL,
        day        date   NOT NULL,
        clicks     bigint NOT NULL DEFAULT 0,
        bot_clicks bigint NOT NULL DEFAULT 0,
        domain_id  bigint NOT NULL DEFAULT 0,
        CONSTRAINT link_clicks_daily_pkey PRIMARY KEY (domain_id, code, day),
        CONSTRAINT link_clicks_daily_link_fkey FOREIGN KEY (domain_id, code) REFERENCES links (domain_id, code) ON UPDATE CASCADE
      ) PARTITION BY RANGE (day);
      EXECUTE format('ALTER TABLE link_clicks_daily ATTACH PARTITION link_clicks_daily_before FOR VALUES FROM (MINVALUE) TO (%L)', bound);
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

SELECT analytics_partitions(current_date, NULL, 2);
