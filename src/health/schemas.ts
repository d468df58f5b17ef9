// The shapes of the target health routes (health/routes.ts), for validation and the OpenAPI document.

import { Type, type Static } from 'typebox';

const Status = Type.String({
  description:
    'The final HTTP status of the last probe ("200", "404"), or why there was none: timeout, dns, refused, reset, tls, network, ' +
    'private_address, redirect_loop, too_many_redirects, invalid_redirect.',
  examples: ['200', '404', 'timeout'],
});

export const HealthProbe = Type.Object({
  at: Type.String({ format: 'date-time' }),
  status: Status,
  ok: Type.Boolean({ description: 'Whether this probe counted as the target being there.' }),
  latencyMs: Type.Integer({ minimum: 0 }),
});

export const LinkHealth = Type.Object({
  probes: Type.Boolean({ description: 'false: the link is opted out of probes.' }),
  status: Type.Union([Status, Type.Null()], { description: 'The last probe’s result; null before the first.' }),
  checkedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  failures: Type.Integer({ minimum: 0, description: 'Failed probes in a row.' }),
  broken: Type.Boolean({ description: 'true once HEALTH_BROKEN_AFTER probes in a row failed, until one succeeds.' }),
  brokenSince: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  nextProbeAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When it is due again; null while it is not enrolled yet or opted out.',
  }),
  history: Type.Array(HealthProbe, { description: 'The last probes (up to 30), newest first.' }),
});
export type LinkHealth = Static<typeof LinkHealth>;

export const PutHealthBody = Type.Object(
  { probes: Type.Boolean({ description: 'false opts the link out of probes (its broken state is cleared); true opts it back in.' }) },
  { additionalProperties: false },
);
