// The shapes of the links routes, in TypeBox: one source for request validation (Fastify's Ajv),
// the handlers' types (the TypeBox type provider), the OpenAPI document (/docs) and the dashboard's
// client (type-only imports).

import { Type, type Static } from 'typebox';
import { LINK_SAFETIES, LINK_STATES, TAG_MAX_LENGTH, TAGS_MAX, TITLE_MAX_LENGTH } from '../core/link.ts';
import {
  DEVICE_CONDITIONS,
  PREVIEW_DESCRIPTION_MAX_LENGTH,
  PREVIEW_TITLE_MAX_LENGTH,
  SPLIT_MAX,
  TARGETS_MAX,
} from '../core/link-options.ts';
import { ErrorBody } from '../errors.ts';
import { Code, Domain, DomainIn, ExpiresAt, literals, Url } from '../api/schemas.ts';

const StartsAtIn = Type.Union([Type.String(), Type.Null()], {
  description:
    'RFC 3339 date-time with a zone: before it the link answers 404 LINK_NOT_YET_ACTIVE (state `scheduled`), from it on it redirects; before expiresAt. null or absent: at once.',
});
const StartsAt = Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
  description: 'When the link starts redirecting; null: it does already (since its creation).',
});
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, SEARCH_MAX, SEARCH_MIN, TOTAL_MAX } from './list-query.ts';
import { TREND_DAYS } from './list-trends.ts';

const BULK_MAX_ITEMS = 1000;

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
    expiredUrl: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description:
          'Where visitors go once the link has expired or its click limit is used up, before the domain’s expired fallback: checked like `url` ' +
          '(its rules and the destination blocklists). Not a click of the link’s. absent or null: none.',
      }),
    ),
    password: Type.Optional(
      Type.Union([Type.String(), Type.Literal(true), Type.Null()], {
        description:
          'A password the visitor must give before the redirect: 8–128 characters (existing links keep theirs) (kept only as a scrypt hash); `true` keeps the one the link has (a link that has one shows `true`); absent or null: none.',
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
    startsAt: Type.Optional(StartsAtIn),
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
  startsAt: StartsAt,
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

export const LinkDetails = Type.Object(
  {
    code: Code,
    domain: Domain,
    shortUrl: Type.String(),
    url: Url,
    title: Title,
    tags: Tags,
    expiresAt: ExpiresAt,
    startsAt: StartsAt,
    disabled: Type.Boolean(),
    archivedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the link was archived (it still redirects, and leaves the default list); null: it is not.',
    }),
    state: literals(LINK_STATES, {
      description:
        'What its redirect answers now, by precedence: `disabled` if disabled, else `blocked` if a blocklist named its target ' +
        '(451 LINK_BLOCKED), else `expired` once expiresAt has passed, else `limit_reached` once clicksUsed has reached ' +
        'options.clickLimit, else `scheduled` before startsAt, else `flagged` if a blocklist named its target (a warning page ' +
        'first), else `active`.',
    }),
    safety: Type.Union(
      [
        Type.Object({ action: literals(LINK_SAFETIES), list: Type.String({ description: 'The blocklist that named its target.' }) }),
        Type.Null(),
      ],
      {
        description:
          'What the deployment did when a blocklist named its target after the link was made (BLOCKLIST_ACTION): `blocked`, or ' +
          "`flagged` (a warning page first); null: nothing. Only the deployment's operators can lift it.",
      },
    ),
    createdAt: Type.String({ format: 'date-time' }),
    creator: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String() }), Type.Null()], {
      description: 'The key that created the link; null: created without a key.',
    }),
    clicks: Type.Integer({ description: 'Clicks by people, as of the last flush (CLICK_FLUSH_INTERVAL_MS).' }),
    botClicks: Type.Integer({ description: 'Clicks by bots and crawlers.' }),
    clicksUsed: Type.Union([Type.Integer(), Type.Null()], {
      description:
        'Redirects counted against options.clickLimit so far, at once (not as of a flush): "clicksUsed of clickLimit clicks used". ' +
        'null: the link has no click limit (or the count could not be read just now).',
    }),
    options: OptionsOut,
  },
  { title: 'Link' },
);

export const PatchLinkBody = Type.Object(
  {
    url: Type.Optional(Type.String({ description: 'A new target.' })),
    expiresAt: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'A new expiry, or null for never.' })),
    startsAt: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'A new start (before the expiry the link will have), or null: redirect at once.',
      }),
    ),
    disabled: Type.Optional(Type.Boolean({ description: 'true: the link answers 410 until enabled again.' })),
    archived: Type.Optional(
      Type.Boolean({
        description:
          'true: archive the link (kept and still redirecting, out of the default list: GET /links?archived=only); false: unarchive it.',
      }),
    ),
    title: Type.Optional(TitleIn),
    tags: Type.Optional(Type.Array(Type.String(), { description: 'Replaces every tag of the link; [] removes them all.' })),
    options: Type.Optional(
      Type.Union([LinkOptions, Type.Null()], { description: 'Replaces all of the link’s options; null removes them.' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchLinkBody = Static<typeof PatchLinkBody>;

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
    state: Type.Optional(
      Type.String({ description: `Only links in this state: ${LINK_STATES.map((state) => `\`${state}\``).join(', ')}.` }),
    ),
    creator: Type.Optional(Type.String({ description: 'Only links created by the key with this id.' })),
    domain: Type.Optional(Type.String({ description: 'Only links on the short domain with this host (GET /domains).' })),
    health: Type.Optional(Type.String({ description: '`broken`: only links whose target probes call broken (GET /links/:code/health).' })),
    archived: Type.Optional(
      Type.String({
        description: 'Archived links: `exclude` (the default: the list leaves them out), `include` (with the others) or `only`.',
      }),
    ),
    include: Type.Optional(
      Type.String({
        description: `\`trend\`: each link with its clicks by people on each of the last ${TREND_DAYS} UTC days (\`trend\`).`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListQuery = Static<typeof ListQuery>;

/** A link of the list: with its trend when asked (include=trend). */
export const ListedLink = Type.Object(
  {
    ...LinkDetails.properties,
    trend: Type.Optional(
      Type.Array(Type.Integer(), {
        description: `With include=trend: clicks by people on each of the last ${TREND_DAYS} UTC days, oldest first, today last.`,
      }),
    ),
  },
  { title: 'ListedLink' },
);

export const LinkList = Type.Object({
  links: Type.Array(ListedLink),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Give it as `cursor` for the next page; null: this was the last.' }),
  total: Type.Optional(
    Type.Integer({
      description: `On the first page (no cursor): how many links pass the filters, counted up to ${TOTAL_MAX.toLocaleString('en')}.`,
    }),
  ),
  totalAtLeast: Type.Optional(
    Type.Boolean({ description: `true: more than ${TOTAL_MAX.toLocaleString('en')} links pass, and total is that bound.` }),
  ),
});

export const TagList = Type.Object({
  tags: Type.Array(Type.Object({ tag: Type.String(), links: Type.Integer({ description: 'Links of the workspace with this tag.' }) }), {
    description: 'Most used first.',
  }),
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

export const AliasAvailabilityQuery = Type.Object(
  {
    alias: Type.String({ description: 'The custom alias to check, as a create would send it.' }),
    domain: Type.Optional(DomainIn),
  },
  { additionalProperties: false },
);

export const AliasAvailability = Type.Object({
  alias: Type.String(),
  domain: Domain,
  available: Type.Boolean({ description: 'A create with this alias on this domain would not be refused for its alias now.' }),
  reason: Type.Optional(
    Type.Object(
      { code: Type.String({ examples: ['ALIAS_TAKEN'] }), message: Type.String() },
      { description: 'Why not: the code a create would be refused with (ALIAS_INVALID, ALIAS_RESERVED, ALIAS_TAKEN).' },
    ),
  ),
});
