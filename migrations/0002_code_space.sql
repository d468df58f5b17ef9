-- What every instance needs to answer "this code cannot exist" without a query (see
-- src/resolve/code-space.ts): which links have generated codes, every alias that could look like
-- one, in commit order, and which code length and key generated the codes.

-- Only the service marks a row generated. Every other row (those from before this column, and
-- any imported by hand) counts as an alias, which is always safe: an alias is looked up.
ALTER TABLE links ADD COLUMN generated boolean NOT NULL DEFAULT false;

-- One row: the code length and a fingerprint of CODE_SECRET that generated the codes (recorded
-- by the first instance to start), and the version of the alias log. An instance configured
-- otherwise does not trust its own decoding of codes, and looks every unknown code up.
CREATE TABLE code_space (
  one             boolean     PRIMARY KEY DEFAULT true CHECK (one),
  code_length     integer,
  key_fingerprint text,
  alias_version   bigint      NOT NULL DEFAULT 0,
  created_at      timestamptz NOT NULL DEFAULT now()
);
INSERT INTO code_space DEFAULT VALUES;

-- Every alias made of letters and digits only, with the version of the statement that wrote it.
-- Versions are handed out under the lock of the code_space row, held until commit, so they are
-- in commit order: a reader that has seen version v has seen everything up to v, and the next
-- read asks for what comes after it. Written by a trigger, so rows inserted by hand count too.
CREATE TABLE alias_log (
  version bigint NOT NULL,
  code    text   COLLATE "C" NOT NULL,
  PRIMARY KEY (version, code)
);
INSERT INTO alias_log (version, code) SELECT 0, code FROM links WHERE code ~ '^[0-9A-Za-z]+$';

CREATE FUNCTION log_aliases() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  next_version bigint;
BEGIN
  IF EXISTS (SELECT 1 FROM inserted WHERE NOT generated AND code ~ '^[0-9A-Za-z]+$') THEN
    UPDATE code_space SET alias_version = alias_version + 1 RETURNING alias_version INTO next_version;
    INSERT INTO alias_log (version, code)
      SELECT next_version, code FROM inserted WHERE NOT generated AND code ~ '^[0-9A-Za-z]+$';
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER links_log_aliases AFTER INSERT ON links
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION log_aliases();
