-- Single sign-on (src/people/sso-*.ts, docs/sso.md): the identities an OpenID provider vouched for,
-- each the pair (issuer, subject) the OpenID Connect spec says is stable and unique, and the person
-- it signs in. A person's email may change at the provider or here; this link does not.
CREATE TABLE sso_identities (
  issuer     text        NOT NULL,
  subject    text        NOT NULL,
  person_id  bigint      NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer, subject)
);
-- A person's identities, and the cascade when a person goes.
CREATE INDEX sso_identities_by_person ON sso_identities (person_id);
