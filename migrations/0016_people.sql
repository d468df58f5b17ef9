-- People: accounts for humans, their memberships of workspaces, invitations, one-time email tokens,
-- and the audit log. Keys stay for machines. Quick: new tables, and columns with constant defaults
-- (no rewrite) on api_keys, sessions and workspaces.
--
-- A membership acts through a key of its own (kind 'member'): a key row that no secret opens, whose
-- role is the member's role. A person's dashboard session is opened with it, so that everything that
-- reads a key (roles, link ownership, revocation closing sessions) reads people the same way; leaving
-- a workspace revokes it. Keys from before this migration are service keys of their workspace and
-- keep working as they did (docs/upgrading.md).

CREATE TABLE people (
  id                bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name              text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  -- Lower-cased; unique among people.
  email             text        NOT NULL UNIQUE CHECK (char_length(email) BETWEEN 3 AND 254 AND email = lower(email)),
  email_verified_at timestamptz,
  -- An Argon2id PHC string; NULL for a person who signs in only by single sign-on or a passkey.
  password_hash     text,
  -- Bumped on a password change or reset: tokens made before it stop working.
  credentials_changed_at timestamptz NOT NULL DEFAULT now(),
  -- The workspace a sign-in opens on.
  last_workspace_id bigint      REFERENCES workspaces (id),
  created_at        timestamptz NOT NULL DEFAULT now()
);

-- 'service': a workspace's key for machines (every key from before); 'personal': a person's API key,
-- its role at most theirs, revoked when they leave; 'member': the key a membership acts through.
ALTER TABLE api_keys
  ADD COLUMN kind text NOT NULL DEFAULT 'service' CHECK (kind IN ('service', 'personal', 'member')),
  ADD COLUMN person_id bigint REFERENCES people (id);
ALTER TABLE api_keys ADD CONSTRAINT api_keys_person_kind CHECK ((kind = 'service') = (person_id IS NULL)) NOT VALID;
CREATE INDEX api_keys_by_person ON api_keys (person_id) WHERE person_id IS NOT NULL;

CREATE TABLE memberships (
  person_id    bigint      NOT NULL REFERENCES people (id),
  workspace_id bigint      NOT NULL REFERENCES workspaces (id),
  -- The member key: its role is the membership's role.
  key_id       bigint      NOT NULL UNIQUE REFERENCES api_keys (id),
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (person_id, workspace_id)
);
CREATE INDEX memberships_by_workspace ON memberships (workspace_id, person_id);

-- A person's session also knows the person; idle sessions end (last_seen_at, written at most once a
-- minute), and expires_at is the absolute end. Sessions opened with an API key have no person.
ALTER TABLE sessions
  ADD COLUMN person_id bigint REFERENCES people (id),
  ADD COLUMN last_seen_at timestamptz NOT NULL DEFAULT now(),
  -- A short public id, to list and close sessions without their secret.
  ADD COLUMN public_id text,
  -- The client's address, truncated (/24, /48), and its user agent, cut to 200 characters.
  ADD COLUMN address text,
  ADD COLUMN user_agent text,
  -- How the person proved who they are: 'password', 'sso', 'passkey', 'totp', 'recovery-code'. A
  -- workspace that requires single sign-on or a second factor reads them.
  ADD COLUMN methods text[] NOT NULL DEFAULT '{}';
CREATE UNIQUE INDEX sessions_by_public_id ON sessions (public_id) WHERE public_id IS NOT NULL;
CREATE INDEX sessions_by_person ON sessions (person_id) WHERE person_id IS NOT NULL;

ALTER TABLE workspaces
  -- People whose verified email is at this domain may join as members on their own.
  ADD COLUMN join_domain text CHECK (join_domain IS NULL OR join_domain = lower(join_domain)),
  -- Members must sign in with a second factor (a passkey or a code).
  ADD COLUMN require_second_factor boolean NOT NULL DEFAULT false,
  -- Members must sign in with single sign-on.
  ADD COLUMN require_sso boolean NOT NULL DEFAULT false,
  -- Audit entries older than this many days are dropped.
  ADD COLUMN audit_retention_days integer NOT NULL DEFAULT 365 CHECK (audit_retention_days BETWEEN 1 AND 3650);

-- Invitations: a single-use token (its SHA-256 kept) sent by email, valid until expires_at.
CREATE TABLE invitations (
  id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id bigint      NOT NULL REFERENCES workspaces (id),
  email        text        NOT NULL CHECK (email = lower(email)),
  role         text        NOT NULL CHECK (role IN ('admin', 'member', 'viewer')),
  hash         bytea       NOT NULL UNIQUE CHECK (octet_length(hash) = 32),
  invited_by   bigint      REFERENCES people (id),
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  accepted_at  timestamptz,
  accepted_by  bigint      REFERENCES people (id),
  revoked_at   timestamptz
);
CREATE INDEX invitations_by_workspace ON invitations (workspace_id, id);

-- One-time tokens sent by email: verifying an address, resetting a password. Their SHA-256 kept.
CREATE TABLE email_tokens (
  hash       bytea       PRIMARY KEY CHECK (octet_length(hash) = 32),
  person_id  bigint      NOT NULL REFERENCES people (id),
  purpose    text        NOT NULL CHECK (purpose IN ('verify-email', 'reset-password')),
  -- The address it was sent to (verify-email: the address it verifies).
  email      text        NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX email_tokens_by_person ON email_tokens (person_id);

-- The audit log: who did what to which target in a workspace, when, from where (truncated), with
-- what it was before and after (never a secret). Written in the transaction of the change.
CREATE TABLE audit_log (
  id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id bigint      REFERENCES workspaces (id),
  at           timestamptz NOT NULL DEFAULT now(),
  -- The person, or the key, that acted (both NULL: nobody signed in, as a failed sign-in).
  actor_person_id bigint,
  actor_key_id    bigint,
  actor_name   text,
  action       text        NOT NULL,
  target_type  text        NOT NULL,
  target_id    text,
  before       jsonb,
  after        jsonb,
  address      text
);
CREATE INDEX audit_log_by_workspace ON audit_log (workspace_id, id DESC);
CREATE INDEX audit_log_by_at ON audit_log (at);
-- The retention (audit/store.ts dropExpiredAudit) finds each workspace's entries older than its
-- audit_retention_days by this index, whatever the other workspaces keep.
CREATE INDEX audit_log_by_workspace_at ON audit_log (workspace_id, at);

-- The one-time setup token of a fresh install: made at the first start while no person exists, logged
-- by every instance, accepted (from another address than loopback) to set up the first admin, and
-- dropped when that is done. Random: nothing in the source or the configuration predicts it.
CREATE TABLE setup_token (
  id         integer     PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  token      text        NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
