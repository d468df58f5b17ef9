-- Link management, API keys, idempotent creates and click counts.

-- API keys: a random 32-byte secret shown once; only its SHA-256 is kept.
CREATE TABLE api_keys (
  id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  hash       bytea       NOT NULL UNIQUE CHECK (octet_length(hash) = 32),
  name       text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100)
);

-- Who created a link (NULL: created without a key, managed by nobody), and deletion. A deleted
-- link keeps its row, so that its code is never handed out again; it answers 404 everywhere.
ALTER TABLE links ADD COLUMN owner_key_id bigint REFERENCES api_keys (id);
ALTER TABLE links ADD COLUMN deleted boolean NOT NULL DEFAULT false;

-- Click totals, kept up to date by the click flusher (human visitors and bots apart).
ALTER TABLE links ADD COLUMN clicks bigint NOT NULL DEFAULT 0;
ALTER TABLE links ADD COLUMN bot_clicks bigint NOT NULL DEFAULT 0;

-- Clicks per link per UTC day.
CREATE TABLE link_clicks_daily (
  code       text   COLLATE "C" NOT NULL REFERENCES links (code),
  day        date   NOT NULL,
  clicks     bigint NOT NULL DEFAULT 0,
  bot_clicks bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (code, day)
);

-- Idempotency-Key of a create: the key, scoped to the API key that sent it (scope 0: no API key,
-- and the key is prefixed with the client's address), the SHA-256 of the request it came with,
-- and the link it created. Written in the same statement as the link, so that a create is
-- acknowledged with its key or not at all.
CREATE TABLE idempotency_keys (
  scope        bigint      NOT NULL,
  key          text        COLLATE "C" NOT NULL CHECK (char_length(key) BETWEEN 1 AND 320),
  request_hash bytea       NOT NULL,
  code         text        COLLATE "C" NOT NULL REFERENCES links (code),
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, key)
);
