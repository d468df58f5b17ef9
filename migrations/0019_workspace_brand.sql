-- A workspace's brand and defaults (docs/settings.md): the name, colour and logo that visitors see on
-- its domains' pages (a dead link, a password form), the domain its links go on when a create names
-- none, and the longest a session in it may last. Nullable columns without defaults: quick on any
-- database, and NULL means "as before" (the service's own look, the default domain, SESSION_TTL_HOURS).

ALTER TABLE workspaces
  ADD COLUMN brand_name        text CHECK (char_length(brand_name) BETWEEN 1 AND 60),
  -- #rrggbb, lowercase.
  ADD COLUMN brand_color       text CHECK (brand_color ~ '^#[0-9a-f]{6}$'),
  -- The logo's bytes and their type: PNG, JPEG or WebP (never SVG, which can carry script), at most 32 KiB.
  ADD COLUMN brand_logo        bytea CHECK (octet_length(brand_logo) BETWEEN 1 AND 32768),
  ADD COLUMN brand_logo_type   text CHECK (brand_logo_type IN ('image/png', 'image/jpeg', 'image/webp')),
  ADD COLUMN default_domain_id bigint REFERENCES domains (id) ON DELETE SET NULL,
  ADD COLUMN session_hours     integer CHECK (session_hours BETWEEN 1 AND 8760),
  ADD CONSTRAINT workspaces_brand_logo_typed CHECK ((brand_logo IS NULL) = (brand_logo_type IS NULL));
