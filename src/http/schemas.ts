// The API's shapes, in TypeBox: one source for request validation (Fastify's Ajv), the handlers'
// types (the TypeBox type provider) and the OpenAPI document (/docs).

import { Type, type Static } from 'typebox';

const BULK_MAX_ITEMS = 1000;

const Code = Type.String({ description: 'The short code.', examples: ['XArj78D'] });
const Url = Type.String({
  description: 'Absolute http(s) URL, at most 2048 characters once normalised.',
  examples: ['https://example.com/spring-sale'],
});
const ExpiresAt = Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
  description: 'RFC 3339 date-time with a time zone, in the future; null: never.',
});

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable error code; branch on it.', examples: ['LINK_NOT_FOUND'] }),
      message: Type.String({ description: 'For people; may change.' }),
    }),
  },
  { $id: 'Error', title: 'Error' },
);

export const CreateLinkBody = Type.Object(
  {
    url: Type.String({ description: 'The target: absolute http(s) URL.' }),
    alias: Type.Optional(Type.String({ description: '3–64 characters of A-Z a-z 0-9 _ -; not a reserved word.' })),
    expiresAt: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'RFC 3339 date-time with a zone, or null.' })),
  },
  { additionalProperties: false },
);
export type CreateLinkBody = Static<typeof CreateLinkBody>;

export const CreatedLink = Type.Object({
  code: Code,
  shortUrl: Type.String({ examples: ['https://sho.rt/XArj78D'] }),
  url: Url,
  expiresAt: ExpiresAt,
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

export const LinkDetails = Type.Object({
  code: Code,
  shortUrl: Type.String(),
  url: Url,
  expiresAt: ExpiresAt,
  disabled: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  clicks: Type.Integer({ description: 'Clicks by people, as of the last flush (CLICK_FLUSH_INTERVAL_MS).' }),
  botClicks: Type.Integer({ description: 'Clicks by bots and crawlers.' }),
});

export const PatchLinkBody = Type.Object(
  {
    url: Type.Optional(Type.String({ description: 'A new target.' })),
    expiresAt: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'A new expiry, or null for never.' })),
    disabled: Type.Optional(Type.Boolean({ description: 'true: the link answers 410 until enabled again.' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchLinkBody = Static<typeof PatchLinkBody>;

export const StatsQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ description: 'First UTC day (YYYY-MM-DD); default 29 days before `to`.' })),
    to: Type.Optional(Type.String({ description: 'Last UTC day (YYYY-MM-DD); default today.' })),
  },
  { additionalProperties: false },
);
export type StatsQuery = Static<typeof StatsQuery>;

export const Stats = Type.Object({
  code: Code,
  total: Type.Object({ clicks: Type.Integer(), botClicks: Type.Integer() }),
  from: Type.String(),
  to: Type.String(),
  daily: Type.Array(Type.Object({ day: Type.String(), clicks: Type.Integer(), botClicks: Type.Integer() })),
});

/** Error answers a route may give, for the OpenAPI document. */
export function errors(...statuses: number[]): Record<number, typeof ErrorBody> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorBody]));
}
