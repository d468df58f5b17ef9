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
