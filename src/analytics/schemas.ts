// The shapes of the stats routes, in TypeBox (see links/schemas.ts for what they are used for).

import { Type, type Static } from 'typebox';
import { Code, DomainIn } from '../api/schemas.ts';

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
  dimension: Type.Optional(
    Type.String({
      description: 'With `value`: only the clicks counted under that value of this dimension (a drill-down). See `filter` in the answer.',
    }),
  ),
  value: Type.Optional(Type.String({ description: 'With `dimension`: the value, as the answer names it (`FR`, `google.com`, `mobile`).' })),
};

export const StatsQuery = Type.Object({ ...RangeQuery, domain: Type.Optional(DomainIn) }, { additionalProperties: false });
export type StatsQuery = Static<typeof StatsQuery>;

export const WorkspaceStatsQuery = Type.Object(
  {
    ...RangeQuery,
    tag: Type.Optional(
      Type.String({ description: 'Only the links with this tag (their rollups summed; at most the 100 most clicked of them, see `tag`).' }),
    ),
  },
  { additionalProperties: false },
);
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
  filter: Type.Optional(
    Type.Object(
      {
        dimension: Type.String(),
        value: Type.String(),
        of: Type.Object(Counts, { description: 'All the clicks of the view over the range, whatever their value.' }),
        share: Type.Number({ description: 'The value’s share of those clicks (people and bots), 0 to 1.' }),
      },
      {
        description:
          'With `dimension` and `value`: `range` and `daily` count only that value’s clicks. No raw click is kept (only daily counts per ' +
          'value), so the other dimensions cannot be narrowed to it: `dimensions` is empty.',
      },
    ),
  ),
};

export const Stats = Type.Object({
  code: Code,
  total: Type.Object({ clicks: Type.Integer(), botClicks: Type.Integer() }, { description: 'All time.' }),
  ...RangeStats,
});

export const WorkspaceStats = Type.Object({
  ...RangeStats,
  tag: Type.Optional(
    Type.Object(
      {
        tag: Type.String(),
        links: Type.Integer({ description: 'Links of the workspace with the tag.' }),
        counted: Type.Integer({ description: 'Those summed: all of them, or the 100 with the most clicks of all time.' }),
      },
      { description: 'With `tag`: every number is the sum of those links’ (orphan visits are the workspace’s: no link has them).' },
    ),
  ),
  topLinksAmong: Type.Optional(
    Type.Integer({
      description:
        'With a filter and no tag: `topLinks` are the links with the most clicks of that value among this many most clicked links of the range.',
    }),
  ),
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
