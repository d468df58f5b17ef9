-- Click limits of links that have one (link-options.ts clickLimit), counted here when Redis is off
-- (write/click-limits.ts): one INSERT ... ON CONFLICT DO UPDATE a turn, which locks each link's row.
-- `used`: redirects given; `asked` and `lim`: what the statement asked, for its DO UPDATE to read
-- (EXCLUDED holds only a row's columns); `last_grant`: what it gave, for RETURNING. A link moved
-- to another domain keeps its count.
CREATE TABLE IF NOT EXISTS link_click_limits (
  domain_id  bigint  NOT NULL,
  code       text    NOT NULL,
  used       bigint  NOT NULL DEFAULT 0 CHECK (used >= 0),
  asked      bigint  NOT NULL DEFAULT 0,
  lim        bigint  NOT NULL DEFAULT 0,
  last_grant bigint  NOT NULL DEFAULT 0,
  PRIMARY KEY (domain_id, code),
  FOREIGN KEY (domain_id, code) REFERENCES links (domain_id, code) ON UPDATE CASCADE ON DELETE CASCADE
);
