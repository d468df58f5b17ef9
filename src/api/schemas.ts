// The API's shapes, in TypeBox: one source for request validation (Fastify's Ajv), the handlers'
// types (the TypeBox type provider) and the OpenAPI document (/docs).

import { Type, type Static } from 'typebox';
import { NAME_MAX_LENGTH } from '../auth/api-keys.ts';
import { TAG_MAX_LENGTH, TAGS_MAX, TITLE_MAX_LENGTH } from '../core/link.ts';
import {
  DEVICE_CONDITIONS,
  PREVIEW_DESCRIPTION_MAX_LENGTH,
  PREVIEW_TITLE_MAX_LENGTH,
  SPLIT_MAX,
  TARGETS_MAX,
} from '../core/link-options.ts';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, SEARCH_MAX, SEARCH_MIN } from '../links/list-query.ts';

const BULK_MAX_ITEMS = 1000;

const Code = Type.String({ description: 'The short code.', examples: ['XArj78D'] });
const Url = Type.String({
  description: 'Absolute http(s) URL, at most 2048 characters once normalised.',
  examples: ['https://example.com/spring-sale'],
});
const ExpiresAt = Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
  description: 'RFC 3339 date-time with a time zone, in the future; null: never.',
});

const DomainIn = Type.String({
  description: 'The host of a short domain of the workspace (GET /domains); absent: the default domain.',
  examples: ['go.example.com'],
});
const Domain = Type.String({ description: "The host of the link's short domain.", examples: ['sho.rt'] });

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable error code; branch on it.', examples: ['LINK_NOT_FOUND'] }),
      message: Type.String({ description: 'For people; may change.' }),
      field: Type.Optional(Type.String({ description: 'The body field the error is about, where it is one field’s.' })),
    }),
  },
  { $id: 'Error', title: 'Error' },
);

const TitleIn = Type.Union([Type.String(), Type.Null()], {
  description: `For people, shown in lists and searched: at most ${TITLE_MAX_LENGTH} characters, no control characters; empty or null: none.`,
});
const TagsIn = Type.Array(Type.String(), {
  description: `At most ${TAGS_MAX} tags of 1–${TAG_MAX_LENGTH} characters, without control characters, "," or "|"; repeated tags (in any case) are kept once.`,
});
const Title = Type.Union([Type.String(), Type.Null()]);
const Tags = Type.Array(Type.String());

const TargetCondition = Type.Object(
  {
    device: Type.Optional(Type.Array(Type.String(), { description: `Any of ${DEVICE_CONDITIONS.join(', ')} (OS or device type).` })),
    country: Type.Optional(
      Type.Array(Type.String(), { description: 'ISO 3166-1 alpha-2 codes of the client address’s country.', examples: [['DE', 'AT']] }),
    ),
    language: Type.Optional(
      Type.Array(Type.String(), { description: 'Language tags: `pt` matches the visitor’s preferred pt and pt-BR, `pt-BR` only pt-BR.' }),
    ),
    query: Type.Optional(
      Type.Object(
        { name: Type.String(), value: Type.Optional(Type.String()) },
        { description: 'The request’s query has this parameter (with this value, when one is given).' },
      ),
    ),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'From this time on (RFC 3339).' })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'Before this time (RFC 3339).' })),
  },
  { description: 'Every condition given must hold.' },
);

export const LinkOptions = Type.Object(
  {
    redirectStatus: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], { description: '301, 302, 307 or 308; absent or null: REDIRECT_STATUS (302).' }),
    ),
    forwardQuery: Type.Optional(
      Type.Union([Type.Boolean(), Type.Null()], {
        description:
          "Merge the request's query into the target's (the request's parameters replace the target's of the same name); absent or null: FORWARD_QUERY.",
      }),
    ),
    targets: Type.Optional(
      Type.Union(
        [
          Type.Array(Type.Object({ when: TargetCondition, url: Type.String({ description: 'Checked like a link target.' }) }), {
            maxItems: TARGETS_MAX,
          }),
          Type.Null(),
        ],
        { description: `Up to ${TARGETS_MAX} rules, in order: the first whose condition holds chooses the target.` },
      ),
    ),
    split: Type.Optional(
      Type.Union(
        [
          Type.Array(Type.Object({ url: Type.String(), weight: Type.Integer({ minimum: 1, maximum: 99 }) }), {
            maxItems: SPLIT_MAX,
          }),
          Type.Null(),
        ],
        {
          description:
            `A/B split when no rule matched: 2–${SPLIT_MAX} variants whose weights sum to 100. A visitor (address and ` +
            'User-Agent) gets the same variant every time, on every instance.',
        },
      ),
    ),
    preview: Type.Optional(
      Type.Union(
        [
          Type.Object({
            title: Type.Optional(Type.String({ description: `At most ${PREVIEW_TITLE_MAX_LENGTH} characters.` })),
            description: Type.Optional(Type.String({ description: `At most ${PREVIEW_DESCRIPTION_MAX_LENGTH} characters.` })),
            image: Type.Optional(Type.String({ description: 'An http(s) URL, checked like a link target.' })),
          }),
          Type.Null(),
        ],
        {
          description:
            'A social preview: link-preview crawlers (the bots analytics recognises) get a page with these Open Graph tags instead of the redirect; people are redirected.',
        },
      ),
    ),
    clickLimit: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], {
        description:
          'The most redirects the link gives, exactly, across every instance (counted in Redis, or in Postgres without it); then 410 LINK_CLICK_LIMIT_REACHED, or the domain’s expired fallback.',
      }),
    ),
    password: Type.Optional(
      Type.Union([Type.String(), Type.Literal(true), Type.Null()], {
        description:
          'A password the visitor must give before the redirect: 4–128 characters (kept only as a scrypt hash); `true` keeps the one the link has (a link that has one shows `true`); absent or null: none.',
      }),
    ),
    deepLink: Type.Optional(
      Type.Union(
        [
          Type.Object({
            ios: Type.Optional(Type.String({ description: 'myapp://path, or an https universal link.' })),
            android: Type.Optional(Type.String({ description: 'myapp://path, or an https app link.' })),
          }),
          Type.Null(),
        ],
        {
          description:
            'Deep links: iOS and Android visitors are sent to the app, the web target (as the rules chose it) as the fallback: an intent with a fallback URL on Android, a page that opens the app and then the web target on iOS.',
        },
      ),
    ),
  },
  {
    description: 'Options beyond the URL; see the README’s Link options. null or {}: none.',
    title: 'LinkOptions',
    additionalProperties: false,
  },
);
const OptionsIn = Type.Union([LinkOptions, Type.Null()]);
const OptionsOut = Type.Union([LinkOptions, Type.Null()], { description: 'The link’s options; null: a plain link.' });

export const CreateLinkBody = Type.Object(
  {
    url: Type.String({ description: 'The target: absolute http(s) URL.' }),
    alias: Type.Optional(Type.String({ description: '3–64 characters of A-Z a-z 0-9 _ -; not a reserved word.' })),
    expiresAt: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'RFC 3339 date-time with a zone, or null.' })),
    title: Type.Optional(TitleIn),
    tags: Type.Optional(TagsIn),
    domain: Type.Optional(DomainIn),
    options: Type.Optional(OptionsIn),
  },
  { additionalProperties: false },
);
export type CreateLinkBody = Static<typeof CreateLinkBody>;

export const CreatedLink = Type.Object({
  code: Code,
  domain: Domain,
  shortUrl: Type.String({ examples: ['https://sho.rt/XArj78D'] }),
  url: Url,
  expiresAt: ExpiresAt,
  title: Title,
  tags: Tags,
  options: OptionsOut,
});

export const BulkBody = Type.Object(
  { links: Type.Array(CreateLinkBody, { minItems: 1, maxItems: BULK_MAX_ITEMS }) },
  { additionalProperties: false },
);
export type BulkBody = Static<typeof BulkBody>;

export const BulkResult = Type.Object({
  created: Type.Integer({ description: 'Items created.' }),
  failed: Type.Integer({ description: 'Items refused.' }),
  results: Type.Array(
    Type.Union([
      Type.Object({ index: Type.Integer(), status: Type.Literal(201), link: CreatedLink }),
      Type.Object({
        index: Type.Integer(),
        status: Type.Integer({ description: 'The status a single create would have had.' }),
        error: ErrorBody.properties.error,
      }),
    ]),
    { description: 'One per item, in the order sent.' },
  ),
});

export const CodeParams = Type.Object({ code: Type.String() });

const Fallback = (what: string) =>
  Type.Optional(
    Type.Union([Type.String(), Type.Null()], { description: `${what}: an http(s) URL, checked like a link target; null: none.` }),
  );
export const CreateDomainBody = Type.Object(
  {
    host: Type.String({ description: 'A host name such as go.example.com (IDN allowed: stored as punycode).' }),
    rootRedirect: Fallback('Where the domain’s root (/) redirects; none: 404'),
    notFoundRedirect: Fallback('Where an unknown code redirects; none: 404'),
    expiredRedirect: Fallback('Where an expired or disabled link redirects; none: 410'),
  },
  { additionalProperties: false },
);
export const PatchDomainBody = Type.Object(
  {
    rootRedirect: Fallback('Where the domain’s root (/) redirects'),
    notFoundRedirect: Fallback('Where an unknown code redirects'),
    expiredRedirect: Fallback('Where an expired or disabled link redirects'),
  },
  { additionalProperties: false },
);
export const DomainView = Type.Object(
  {
    host: Type.String({ examples: ['go.example.com'] }),
    isDefault: Type.Boolean({ description: "BASE_URL's host: every workspace's, configured rather than added." }),
    rootRedirect: Type.Union([Type.String(), Type.Null()]),
    notFoundRedirect: Type.Union([Type.String(), Type.Null()]),
    expiredRedirect: Type.Union([Type.String(), Type.Null()]),
    links: Type.Integer({ description: "The workspace's links on it (deleted ones left out)." }),
    createdAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'Domain' },
);
export const DomainList = Type.Object({ domains: Type.Array(DomainView) });
export const DomainParams = Type.Object({ host: Type.String() });
export const RemoveDomainQuery = Type.Object(
  { moveLinksTo: Type.Optional(Type.String({ description: 'The host of the domain its links move to.' })) },
  { additionalProperties: false },
);
/** The domain of the link a per-link route names. */
export const LinkQuery = Type.Object({ domain: Type.Optional(DomainIn) }, { additionalProperties: false });
export type LinkQuery = Static<typeof LinkQuery>;

export const LinkDetails = Type.Object(
  {
    code: Code,
    domain: Domain,
    shortUrl: Type.String(),
    url: Url,
    title: Title,
    tags: Tags,
    expiresAt: ExpiresAt,
    disabled: Type.Boolean(),
    state: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('disabled')], {
      description: 'disabled if disabled, else expired once expiresAt has passed, else active.',
    }),
    createdAt: Type.String({ format: 'date-time' }),
    creator: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String() }), Type.Null()], {
      description: 'The key that created the link; null: created without a key.',
    }),
    clicks: Type.Integer({ description: 'Clicks by people, as of the last flush (CLICK_FLUSH_INTERVAL_MS).' }),
    botClicks: Type.Integer({ description: 'Clicks by bots and crawlers.' }),
    options: OptionsOut,
  },
  { title: 'Link' },
);

export const PatchLinkBody = Type.Object(
  {
    url: Type.Optional(Type.String({ description: 'A new target.' })),
    expiresAt: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'A new expiry, or null for never.' })),
    disabled: Type.Optional(Type.Boolean({ description: 'true: the link answers 410 until enabled again.' })),
    title: Type.Optional(TitleIn),
    tags: Type.Optional(Type.Array(Type.String(), { description: 'Replaces every tag of the link; [] removes them all.' })),
    options: Type.Optional(
      Type.Union([LinkOptions, Type.Null()], { description: 'Replaces all of the link’s options; null removes them.' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchLinkBody = Static<typeof PatchLinkBody>;

const RangeQuery = {
  from: Type.Optional(Type.String({ description: 'First UTC day (YYYY-MM-DD); default 29 days before `to`.' })),
  to: Type.Optional(Type.String({ description: 'Last UTC day (YYYY-MM-DD); default today.' })),
  dimensions: Type.Optional(
    Type.String({
      description:
        'Comma-separated: referrer, country, city, device, browser, os, language, source, target (a link’s rules and variants), or `all`; default none. ' +
        'A dimension the deployment does not keep (ANALYTICS_DIMENSIONS) is left out of the answer.',
    }),
  ),
  limit: Type.Optional(Type.String({ description: 'Values per dimension, 1–100 (default 10); the rest are summed as `other`.' })),
};

export const StatsQuery = Type.Object({ ...RangeQuery, domain: Type.Optional(DomainIn) }, { additionalProperties: false });
export type StatsQuery = Static<typeof StatsQuery>;

export const WorkspaceStatsQuery = Type.Object(RangeQuery, { additionalProperties: false });
export type WorkspaceStatsQuery = Static<typeof WorkspaceStatsQuery>;

const Counts = { clicks: Type.Integer(), botClicks: Type.Integer(), visitors: Type.Integer() };
const ValueCount = Type.Object({ value: Type.String(), other: Type.Optional(Type.Literal(true)), ...Counts });
const RangeStats = {
  from: Type.String(),
  to: Type.String(),
  range: Type.Object(Counts, { description: 'Over the range: clicks by people, by bots, and unique visitors (approximate).' }),
  daily: Type.Array(Type.Object({ day: Type.String(), ...Counts })),
  dimensions: Type.Record(Type.String(), Type.Array(ValueCount), {
    description: 'Per dimension asked for: its values, the most clicked first, the rest as `other` (other: true) last.',
  }),
  visitorsError: Type.Number({ description: 'Relative standard error of the visitor counts (HyperLogLog).' }),
};

export const Stats = Type.Object({
  code: Code,
  total: Type.Object({ clicks: Type.Integer(), botClicks: Type.Integer() }, { description: 'All time.' }),
  ...RangeStats,
});

export const WorkspaceStats = Type.Object({
  ...RangeStats,
  topLinks: Type.Array(
    Type.Object({
      code: Code,
      domain: Type.String(),
      shortUrl: Type.String(),
      url: Type.String(),
      title: Type.Union([Type.String(), Type.Null()]),
      clicks: Type.Integer(),
      botClicks: Type.Integer(),
    }),
  ),
  orphans: Type.Object({
    visits: Type.Integer(),
    daily: Type.Array(Type.Object({ day: Type.String(), visits: Type.Integer() })),
    top: Type.Array(
      Type.Object({
        domain: Type.String(),
        path: Type.String(),
        other: Type.Optional(Type.Literal(true)),
        visits: Type.Integer(),
      }),
    ),
  }),
});

export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.String({ description: `Links per page, 1–${LIST_LIMIT_MAX} (default ${LIST_LIMIT_DEFAULT}).` })),
    cursor: Type.Optional(Type.String({ description: 'nextCursor of the page before; leave out for the first page.' })),
    sort: Type.Optional(Type.String({ description: '`created` (newest first, the default) or `clicks` (most clicked by people first).' })),
    q: Type.Optional(
      Type.String({
        description: `${SEARCH_MIN}–${SEARCH_MAX} characters, searched (without case) in the code, the target and the title.`,
      }),
    ),
    tag: Type.Optional(Type.String({ description: 'Only links with this tag.' })),
    state: Type.Optional(Type.String({ description: '`active`, `expired` or `disabled`.' })),
    creator: Type.Optional(Type.String({ description: 'Only links created by the key with this id.' })),
    domain: Type.Optional(Type.String({ description: 'Only links on the short domain with this host (GET /domains).' })),
  },
  { additionalProperties: false },
);
export type ListQuery = Static<typeof ListQuery>;

export const LinkList = Type.Object({
  links: Type.Array(LinkDetails),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Give it as `cursor` for the next page; null: this was the last.' }),
});

export const TagList = Type.Object({
  tags: Type.Array(Type.Object({ tag: Type.String(), links: Type.Integer({ description: 'Links of the workspace with this tag.' }) }), {
    description: 'Most used first.',
  }),
});

const Role = Type.Union([Type.Literal('admin'), Type.Literal('member'), Type.Literal('viewer')]);

export const KeyInfo = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  role: Role,
  createdAt: Type.String({ format: 'date-time' }),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const KeyList = Type.Object({ keys: Type.Array(KeyInfo) });

export const CreateKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: NAME_MAX_LENGTH, description: 'For people: who or what uses the key.' }),
    role: Role,
  },
  { additionalProperties: false },
);
export type CreateKeyBody = Static<typeof CreateKeyBody>;

export const CreatedKey = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  role: Role,
  createdAt: Type.String({ format: 'date-time' }),
  key: Type.String({ description: 'The secret, shown this once: only its hash is stored.' }),
});

export const KeyParams = Type.Object({ id: Type.String() });

export const SignInBody = Type.Object({ key: Type.String({ description: 'An API key (sk_…).' }) }, { additionalProperties: false });
export type SignInBody = Static<typeof SignInBody>;

export const SessionInfo = Type.Object({
  workspace: Type.Object({ id: Type.Integer(), name: Type.String() }),
  key: Type.Object({ id: Type.Integer(), name: Type.String(), role: Role }),
  csrfToken: Type.String({ description: 'Send it as X-CSRF-Token with every POST, PATCH, PUT and DELETE made with the session cookie.' }),
  expiresAt: Type.String({ format: 'date-time' }),
});

export const ImportQuery = Type.Object(
  {
    format: Type.Optional(
      Type.String({ description: '`auto` (the default: told by the header), `generic`, `bitly`, `yourls`, `kutt` or `shlink`.' }),
    ),
    domain: Type.Optional(Type.String({ description: 'The host of the short domain every row goes on; absent: the default domain.' })),
  },
  { additionalProperties: false },
);

export const ImportReport = Type.Object({
  format: Type.String({ description: 'The format the file was read as.' }),
  rows: Type.Integer(),
  created: Type.Integer(),
  existing: Type.Integer({ description: 'Rows whose link exists already (the same file imported before, or the same code and URL).' }),
  failed: Type.Integer(),
  results: Type.Array(
    Type.Object({
      row: Type.Integer({ description: 'The line of the file the row starts on (the header is line 1).' }),
      status: Type.Union([Type.Literal('created'), Type.Literal('existing'), Type.Literal('failed')]),
      code: Type.Optional(Type.String()),
      shortUrl: Type.Optional(Type.String()),
      error: Type.Optional(ErrorBody.properties.error),
      note: Type.Optional(Type.String({ description: 'E.g. why the row’s code was not kept as its alias.' })),
    }),
    { description: 'One per row, in the order of the file.' },
  ),
});

/** The routes that act as a key: an API key in a header, or the dashboard's session cookie. */
export const SECURITY = [{ bearer: [] }, { apiKey: [] }, { session: [] }];

/** Error answers a route may give, for the OpenAPI document. */
export function errors(...statuses: number[]): Record<number, typeof ErrorBody> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorBody]));
}
