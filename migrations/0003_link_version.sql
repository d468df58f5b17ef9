-- How many times a link has been changed. Copies of a link outside Postgres (Redis, the LRUs of
-- every instance) may be written in any order by concurrent instances; the version tells which
-- state is newer, so that an older one never overwrites a newer one. Updates of one row are
-- serialised by its row lock, so versions grow in commit order.
ALTER TABLE links ADD COLUMN version integer NOT NULL DEFAULT 0;
