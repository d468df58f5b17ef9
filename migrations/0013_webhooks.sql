-- Webhooks (src/events/, db/webhooks.ts): a workspace's endpoints, the outbox of events about its
-- links, and one delivery row per (event, endpoint).
--
-- An event is written by the statement that makes the change it reports (a create's batch, a
-- PATCH, a DELETE, a click flush, a click limit's grant, the expiry sweep), in the same
-- transaction, and only when an enabled endpoint of the workspace takes its type: a deployment
-- without webhooks writes nothing. Each delivery is claimed by one instance at a time: the claim
-- locks the endpoint's row (FOR UPDATE SKIP LOCKED), so that its cap on deliveries under way holds
-- across instances, and leases the delivery (state 'sending', next_attempt_at = end of the lease):
-- an instance that dies mid-delivery leaves it due again when the lease ends.

CREATE TABLE IF NOT EXISTS webhook_endpoints (
  id                  bigserial   PRIMARY KEY,
  workspace_id        bigint      NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  url                 text        NOT NULL,
  description         text        NOT NULL DEFAULT '',
  events              text[]      NOT NULL CHECK (cardinality(events) > 0),
  enabled             boolean     NOT NULL DEFAULT true,
  -- 'whsec_' and base64 of 24 random bytes (Standard Webhooks); the one before a rotation signs
  -- too until previous_until.
  secret              text        NOT NULL,
  previous_secret     text,
  previous_until      timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS webhook_endpoints_by_workspace ON webhook_endpoints (workspace_id) WHERE enabled;

CREATE TABLE IF NOT EXISTS webhook_messages (
  id           bigserial   PRIMARY KEY,
  -- The webhook-id header: the same on every attempt and resend of the event.
  msg_id       text        NOT NULL UNIQUE DEFAULT ('msg_' || replace(gen_random_uuid()::text, '-', '')),
  workspace_id bigint      NOT NULL,
  type         text        NOT NULL,
  -- The link it is about, when the order of its events matters (null: a batch of click counts).
  domain_id    bigint,
  code         text,
  -- The body's `data`, in the form it was read in; src/events/webhook-body.ts renders it.
  data         jsonb       NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id              bigserial   PRIMARY KEY,
  message_id      bigint      NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
  endpoint_id     bigint      NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  -- The message's link, copied: a delivery waits for the earlier ones of its link to its endpoint.
  domain_id       bigint,
  code            text,
  state           text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sending', 'delivered', 'dead')),
  attempts        integer     NOT NULL DEFAULT 0,
  -- pending: when it is due; sending: when its lease ends.
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_attempt_at timestamptz,
  last_status     integer,
  last_error      text,
  last_latency_ms integer,
  delivered_at    timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (endpoint_id, next_attempt_at)
  WHERE state IN ('pending', 'sending');
CREATE INDEX IF NOT EXISTS webhook_deliveries_order ON webhook_deliveries (endpoint_id, domain_id, code, message_id)
  WHERE state IN ('pending', 'sending') AND code IS NOT NULL;
CREATE INDEX IF NOT EXISTS webhook_deliveries_log ON webhook_deliveries (endpoint_id, id DESC);
CREATE INDEX IF NOT EXISTS webhook_deliveries_by_message ON webhook_deliveries (message_id);
CREATE INDEX IF NOT EXISTS webhook_messages_by_age ON webhook_messages (created_at);

-- link.expired is sent once per expiry: the sweep marks the links it reported; a new expiresAt
-- clears the mark. Links expired before this migration are not reported.
ALTER TABLE links ADD COLUMN IF NOT EXISTS expiry_announced boolean NOT NULL DEFAULT false;
UPDATE links SET expiry_announced = true WHERE expires_at <= now() AND NOT expiry_announced;
CREATE INDEX IF NOT EXISTS links_expiry_due ON links (expires_at)
  WHERE expires_at IS NOT NULL AND NOT expiry_announced AND NOT deleted;
