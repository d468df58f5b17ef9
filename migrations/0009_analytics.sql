-- Click analytics (src/analytics/): rollups of clicks per link, day, dimension and value, and per
-- workspace; visits to codes that do not exist; the daily salts of the visitor hashes. Every table
-- is partitioned by month, so that ANALYTICS_RETENTION_DAYS drops a month at once instead of
-- deleting rows (analytics_partitions below; link_clicks_daily follows in 0010). Quick: new tables
-- and functions only.

-- Unique visitors are HyperLogLog sketches (src/core/hll.ts), stored sparse: each element is a
-- register's index (12 bits: 4096 registers, a relative standard error of 1.04/64 = 1.6 %) shifted
-- left by 6, plus the register's rank (1..63), at most one element per register. The greatest
-- element of a register is its greatest rank, so a union is a max per register. Unions of many
-- sketches are appended (hll_concat) and merged once, or read set-based (unnest, then max per
-- x >> 6, once), never a fold of hll_merge, which would sort the growing union again for each.
CREATE FUNCTION hll_merge(a integer[], b integer[]) RETURNS integer[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(m ORDER BY m), '{}') FROM (SELECT max(x) AS m FROM unnest(a || b) AS x GROUP BY x >> 6) AS r
$$;
-- Flajolet et al.'s estimate from the registers set and the sum of 2^-rank over them, with linear
-- counting while it is the better one (small counts).
CREATE FUNCTION hll_count(set bigint, inverse_sum double precision) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (CASE WHEN raw <= 2.5 * 4096 AND zeros > 0 THEN 4096 * ln(4096.0 / zeros) ELSE raw END)::bigint
  FROM (SELECT (0.7213 / (1 + 1.079 / 4096)) * 4096 * 4096 / ((4096 - set) + inverse_sum) AS raw, 4096 - set AS zeros) AS q
$$;
-- A stored sketch may hold several elements of a register (see click_rollups): the greatest counts.
CREATE FUNCTION hll_estimate(s integer[]) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT hll_count(count(*), coalesce(sum(power(2::float8, -rank)), 0)) FROM (SELECT max(x & 63) AS rank FROM unnest(s) AS x GROUP BY x >> 6) AS r
$$;
-- Sketches appended, for a group of rows a flush writes as one (a register's elements may repeat).
CREATE AGGREGATE hll_concat(integer[]) (SFUNC = array_cat, STYPE = integer[], INITCOND = '{}');
-- The sketch a flush stores: `stored` and `added` appended while that keeps it within 4096
-- elements (a flush's upsert then costs an array concatenation, not a sort), else merged (at most
-- one element per register again).
CREATE FUNCTION hll_add(stored integer[], added integer[]) RETURNS integer[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN cardinality(stored) + cardinality(added) <= 4096 THEN stored || added ELSE hll_merge(stored, added) END
$$;

-- Per link, UTC day, dimension (src/core/dimensions.ts; 0 is the link's own row, value '')
-- and value: clicks by people, by bots, and the people's sketch (hll_add: at most 4096 elements
-- plus one flush's, a register's may repeat). At most ANALYTICS_VALUES_MAX
-- values per link, day and dimension; the rest is counted under value '' ("other").
CREATE TABLE click_rollups (
  domain_id  bigint    NOT NULL,
  code       text      COLLATE "C" NOT NULL,
  day        date      NOT NULL,
  dimension  smallint  NOT NULL,
  value      text      COLLATE "C" NOT NULL CHECK (octet_length(value) <= 256),
  clicks     bigint    NOT NULL,
  bot_clicks bigint    NOT NULL,
  visitors   integer[] NOT NULL,
  PRIMARY KEY (domain_id, code, day, dimension, value),
  FOREIGN KEY (domain_id, code) REFERENCES links (domain_id, code) ON UPDATE CASCADE
) PARTITION BY RANGE (day);

-- The same across a workspace (so that its stats never read every link's rows), with its own bound.
CREATE TABLE workspace_rollups (
  workspace_id bigint    NOT NULL REFERENCES workspaces (id),
  day          date      NOT NULL,
  dimension    smallint  NOT NULL,
  value        text      COLLATE "C" NOT NULL CHECK (octet_length(value) <= 256),
  clicks       bigint    NOT NULL,
  bot_clicks   bigint    NOT NULL,
  visitors     integer[] NOT NULL,
  PRIMARY KEY (workspace_id, day, dimension, value)
) PARTITION BY RANGE (day);

-- Requests for paths of a served domain that named no link ("orphan visits"): per domain, day and
-- path, the most requested ones; past ANALYTICS_VALUES_MAX paths a day, the rest under path ''.
CREATE TABLE orphan_visits (
  domain_id bigint NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
  day       date   NOT NULL,
  path      text   COLLATE "C" NOT NULL CHECK (octet_length(path) <= 256),
  visits    bigint NOT NULL,
  PRIMARY KEY (domain_id, day, path)
) PARTITION BY RANGE (day);

-- A random salt per UTC day for the visitor hashes, the same on every instance; deleted the day
-- after next, so that no hash can be made again from an address once its day is over.
CREATE TABLE visitor_salts (
  day  date  PRIMARY KEY,
  salt bytea NOT NULL CHECK (octet_length(salt) = 16)
);

-- Creates the monthly partitions of the tables above (and of link_clicks_daily once 0010 made it
-- partitioned) from `today`'s month to `months_ahead` months after it, drops every partition whose
-- days all lie `keep_days` or more before `today` (none when NULL), and deletes the salts of days
-- before yesterday. Returns the partitions dropped. Called by every instance at start and hourly
-- (src/analytics/retention.ts); an advisory lock makes them take turns, and its locks give up
-- after 200 ms rather than queue reads of links behind them (the next call tries again).
CREATE FUNCTION analytics_partitions(today date, keep_days integer, months_ahead integer) RETURNS integer
LANGUAGE plpgsql SET lock_timeout = '200ms' AS $$
DECLARE
  parent text;
  month date;
  part record;
  dropped integer := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(1414728223);
  FOREACH parent IN ARRAY ARRAY['link_clicks_daily', 'click_rollups', 'workspace_rollups', 'orphan_visits'] LOOP
    CONTINUE WHEN NOT EXISTS (SELECT 1 FROM pg_partitioned_table WHERE partrelid = to_regclass(parent));
    month := date_trunc('month', today)::date;
    FOR i IN 0..months_ahead LOOP
      BEGIN
        EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
          parent || '_' || to_char(month, 'YYYY_MM'), parent, month, (month + interval '1 month')::date);
      EXCEPTION WHEN invalid_object_definition THEN
        NULL; -- the month lies within link_clicks_daily's partition from before partitioning (0010)
      END;
      month := (month + interval '1 month')::date;
    END LOOP;
    CONTINUE WHEN keep_days IS NULL;
    FOR part IN
      SELECT c.relname, substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \(''([0-9-]+)''\)')::date AS upper
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = to_regclass(parent)
    LOOP
      IF part.upper <= today - keep_days THEN
        EXECUTE format('DROP TABLE %I', part.relname);
        dropped := dropped + 1;
      END IF;
    END LOOP;
  END LOOP;
  DELETE FROM visitor_salts WHERE day < today - 1;
  RETURN dropped;
END;
$$;

SELECT analytics_partitions(current_date, NULL, 2);
