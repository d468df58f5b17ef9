-- Second factors (docs/second-factors.md): passkeys (WebAuthn), an authenticator app (TOTP) with its
-- recovery codes, the challenges of passkey ceremonies and the tickets between a password and the
-- second step of a sign-in. New tables only: quick on any database.

-- A person's passkeys: the credential's id and COSE public key as the authenticator gave them, and
-- its signature counter (an assertion whose counter does not grow is refused: a cloned authenticator).
CREATE TABLE passkeys (
  id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  credential_id bytea       NOT NULL UNIQUE CHECK (octet_length(credential_id) BETWEEN 16 AND 1023),
  person_id     bigint      NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  public_key    bytea       NOT NULL,
  counter       bigint      NOT NULL DEFAULT 0 CHECK (counter >= 0),
  transports    text[]      NOT NULL DEFAULT '{}',
  name          text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  -- A passkey synced between devices (credentialBackedUp), as the authenticator said when it was made.
  backed_up     boolean     NOT NULL DEFAULT false,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz
);
CREATE INDEX passkeys_by_person ON passkeys (person_id);

-- A person's authenticator app: the TOTP secret (RFC 6238), encrypted with AES-256-GCM under a key
-- derived from CODE_SECRET (people/totp.ts); a copy of the database alone computes no code. `secret`
-- is the confirmed one (NULL until a code confirmed it); `pending_secret` one being set up (a new
-- phone), which replaces it once a code of it is confirmed. last_used_step: the 30-second step of the
-- last code taken, so that a code works once.
CREATE TABLE totp_secrets (
  person_id      bigint      PRIMARY KEY REFERENCES people (id) ON DELETE CASCADE,
  secret         bytea,
  confirmed_at   timestamptz,
  last_used_step bigint,
  pending_secret bytea,
  pending_at     timestamptz,
  CHECK ((secret IS NULL) = (confirmed_at IS NULL)),
  CHECK (secret IS NOT NULL OR pending_secret IS NOT NULL)
);

-- Recovery codes: ten a person, shown once, kept as their SHA-256; each works once (used_at).
CREATE TABLE recovery_codes (
  person_id  bigint      NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  hash       bytea       NOT NULL CHECK (octet_length(hash) = 32),
  created_at timestamptz NOT NULL DEFAULT now(),
  used_at    timestamptz,
  PRIMARY KEY (person_id, hash)
);

-- The challenge of a passkey ceremony, taken (deleted) by the answer that signs it: an answer is
-- judged once, on whichever instance it reaches. A row, not a cookie: single use needs a record, and
-- the passkey sign-in starts before any session. `person_id`: the person registering, or the person of
-- a second step's ticket; NULL for a passkey sign-in (the passkey says who).
CREATE TABLE webauthn_challenges (
  challenge  text        PRIMARY KEY CHECK (char_length(challenge) BETWEEN 16 AND 128),
  purpose    text        NOT NULL CHECK (purpose IN ('register', 'sign-in')),
  person_id  bigint      REFERENCES people (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL
);
CREATE INDEX webauthn_challenges_by_expiry ON webauthn_challenges (expires_at);

-- Between a right password and the second step of a sign-in: a ticket (its SHA-256 kept) bound to the
-- person and the factor they proved, for five minutes, taken by the step that completes the sign-in;
-- a change of password (people.credentials_changed_at) after it was made voids it.
CREATE TABLE second_factor_tickets (
  hash         bytea       PRIMARY KEY CHECK (octet_length(hash) = 32),
  person_id    bigint      NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  first_factor text        NOT NULL CHECK (first_factor IN ('password', 'sso')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL
);
CREATE INDEX second_factor_tickets_by_expiry ON second_factor_tickets (expires_at);
