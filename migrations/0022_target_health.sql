-- Target health (docs/target-health.md): what the probes of links' targets found. Tables of their own,
-- keyed like links by (domain_id, code), so that the hot links table gains no column and no write.
--
-- link_health: one row per link the probes know (health/store.ts enrols links by walking the links
-- table's (domain_id, code) index from health_sweep's cursor); next_probe_at is when it is due again,
-- and while a probe is under way, when its claim lapses. probes = false: its owner opted it out.
-- last_status: the final HTTP status, or a failure class ('timeout', 'private_address', ...).
CREATE TABLE IF NOT EXISTS link_health (
  domain_id     bigint      NOT NULL,
  code          text        COLLATE "C" NOT NULL,
  probes        boolean     NOT NULL DEFAULT true,
  next_probe_at timestamptz NOT NULL DEFAULT now(),
  last_status   text        CHECK (char_length(last_status) <= 40),
  last_checked  timestamptz,
  failures      integer     NOT NULL DEFAULT 0 CHECK (failures >= 0),
  broken        boolean     NOT NULL DEFAULT false,
  broken_since  timestamptz,
  PRIMARY KEY (domain_id, code),
  FOREIGN KEY (domain_id, code) REFERENCES links (domain_id, code) ON UPDATE CASCADE ON DELETE CASCADE
);
-- The claim's walk: due links, soonest first.
CREATE INDEX IF NOT EXISTS link_health_due ON link_health (next_probe_at) WHERE probes;
-- The list's filter health=broken: a probe of this small index per link of the page.
CREATE INDEX IF NOT EXISTS link_health_broken ON link_health (domain_id, code) WHERE broken;

-- The last probes of each link (HISTORY_MAX of them, older ones deleted as new ones come).
CREATE TABLE IF NOT EXISTS link_health_probes (
  domain_id  bigint      NOT NULL,
  code       text        COLLATE "C" NOT NULL,
  at         timestamptz NOT NULL,
  status     text        NOT NULL CHECK (char_length(status) <= 40),
  ok         boolean     NOT NULL,
  latency_ms integer     NOT NULL CHECK (latency_ms >= 0),
  PRIMARY KEY (domain_id, code, at),
  FOREIGN KEY (domain_id, code) REFERENCES link_health (domain_id, code) ON UPDATE CASCADE ON DELETE CASCADE
);

-- Where the enrolment walk stands (one row), and the deployment's probe budget: tokens refilled at
-- HEALTH_PROBE_RATE a second, up to one second's worth, taken by each claim under this row's lock.
CREATE TABLE IF NOT EXISTS health_sweep (
  id          boolean     PRIMARY KEY DEFAULT true CHECK (id),
  domain_id   bigint      NOT NULL DEFAULT -1,
  code        text        COLLATE "C" NOT NULL DEFAULT '',
  tokens      double precision NOT NULL DEFAULT 0,
  refilled_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO health_sweep DEFAULT VALUES ON CONFLICT DO NOTHING;

-- Hosts a probe is under way to, in any instance: one probe at a time per host. A row lives from the
-- claim to the probe's record, or until busy_until if its instance died meanwhile.
CREATE TABLE IF NOT EXISTS health_hosts (
  host       text        PRIMARY KEY,
  busy_until timestamptz NOT NULL
);

-- The day (UTC) each workspace was last sent its digest of broken links (workspace.health_digest):
-- the statement that sends one moves it, so that it is sent at most once a day, whichever instance runs it.
CREATE TABLE IF NOT EXISTS health_digests (
  workspace_id bigint PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  day          date   NOT NULL
);
