-- Links. Sized for hundreds of millions of rows: fixed-width columns first so that no alignment
-- padding sits between them, codes compared bytewise (COLLATE "C": codes are case-sensitive ASCII),
-- and no index but the primary key, which is the only lookup the redirect path makes.
CREATE TABLE links (
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  disabled   boolean     NOT NULL DEFAULT false,
  code       text        COLLATE "C" NOT NULL,
  url        text        NOT NULL,
  CONSTRAINT links_pkey PRIMARY KEY (code),
  CONSTRAINT links_code_shape CHECK (code ~ '^[A-Za-z0-9_-]{3,64}$'),
  -- What the API stores: printable ASCII, so every row makes a valid Location header.
  CONSTRAINT links_url_shape CHECK (url ~ '^[!-~]+$' AND octet_length(url) <= 2048),
  CONSTRAINT links_expires_finite CHECK (expires_at IS NULL OR isfinite(expires_at))
);

-- Ids for generated codes, reserved in blocks: each nextval() hands an instance the ids
-- [value, value + increment). The increment is read back by the application, never assumed.
CREATE SEQUENCE link_id_blocks AS bigint INCREMENT BY 1000 MINVALUE 0 START WITH 0 NO CYCLE;
