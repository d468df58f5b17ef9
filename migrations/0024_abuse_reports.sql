-- Abuse reports and the deployment's operators (docs/operators.md). Quick: a new table, a column
-- with a constant default on people and a nullable one on workspaces (no rewrite); instances of the
-- release before never read them.
--
-- people.operator: a person who keeps the deployment (above workspaces): reads the report queue,
-- acts on it, sees and suspends workspaces. Granted with `npm run keys -- operator <email> on`;
-- the first person set up at install is one.
ALTER TABLE people ADD COLUMN IF NOT EXISTS operator boolean NOT NULL DEFAULT false;
-- A suspended workspace: its links answer 451 (links.safety 'blocked', safety_list 'suspended'),
-- its keys and sessions may read but not write (403 WORKSPACE_SUSPENDED).
ALTER TABLE workspaces ADD COLUMN IF NOT EXISTS suspended_at timestamptz;

-- A report of a short link by anyone (GET/POST /report). No client address is kept: the rate
-- limits count addresses in Redis (or memory) for an hour, never here.
CREATE TABLE IF NOT EXISTS abuse_reports (
  id             bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  domain_id      bigint      NOT NULL REFERENCES domains (id),
  code           text        NOT NULL,
  reason         text        NOT NULL CHECK (reason IN ('phishing', 'malware', 'spam', 'illegal', 'other')),
  message        text        CHECK (char_length(message) <= 1000),
  reporter_email text        CHECK (char_length(reporter_email) <= 254),
  created_at     timestamptz NOT NULL DEFAULT now(),
  status         text        NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'actioned', 'dismissed')),
  handled_by     bigint      REFERENCES people (id),
  handled_at     timestamptz,
  action         text        CHECK (action IN ('disable_link', 'block_domain', 'suspend_workspace', 'dismiss'))
);
-- The queue groups a link's reports of one status: by link, newest first.
CREATE INDEX IF NOT EXISTS abuse_reports_by_link ON abuse_reports (domain_id, code, status);
CREATE INDEX IF NOT EXISTS abuse_reports_by_status ON abuse_reports (status, created_at DESC);
