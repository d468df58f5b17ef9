-- What every instance needs to answer "this code cannot exist" without a query (see
-- src/resolve/code-space.ts): which links have generated codes, and which code length and key
-- generated them.

-- Only the service marks a row generated. Every other row (those from before this column, and
-- any imported by hand) counts as an alias, which is always safe: an alias is looked up.
ALTER TABLE links ADD COLUMN generated boolean NOT NULL DEFAULT false;
-- Aliases by age: all of them at start-up, the recent ones at each refresh.
CREATE INDEX links_aliases_by_age ON links (created_at) WHERE NOT generated;

-- One row: the code length and a fingerprint of CODE_SECRET that generated the codes. An instance
-- configured otherwise does not trust its own decoding of codes, and looks every unknown one up.
CREATE TABLE code_space (
  one             boolean     PRIMARY KEY DEFAULT true CHECK (one),
  code_length     integer     NOT NULL,
  key_fingerprint text        NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now()
);
