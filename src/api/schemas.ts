// What the API's routes share, in TypeBox: the primitives of links and domains, the parameters of
// per-link routes and the security of routes that act for a key. Each feature declares its own
// shapes beside its routes (links/schemas.ts, domains/schemas.ts, ...); the error body is errors.ts's.

import { Type, type Static, type TLiteral, type TUnion } from 'typebox';

export const Code = Type.String({ description: 'The short code.', examples: ['XArj78D'] });
export const Url = Type.String({
  description: 'Absolute http(s) URL, at most 2048 characters once normalised.',
  examples: ['https://example.com/spring-sale'],
});
export const ExpiresAt = Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
  description: 'RFC 3339 date-time with a time zone, in the future; null: never.',
});

export const DomainIn = Type.String({
  description: 'The host of a short domain of the workspace (GET /domains); absent: the default domain.',
  examples: ['go.example.com'],
});
export const Domain = Type.String({ description: "The host of the link's short domain.", examples: ['sho.rt'] });

export const CodeParams = Type.Object({ code: Type.String() });

/** The domain of the link a per-link route names. */
export const LinkQuery = Type.Object({ domain: Type.Optional(DomainIn) }, { additionalProperties: false });
export type LinkQuery = Static<typeof LinkQuery>;

/** The routes that act as a key: an API key in a header, or the dashboard's session cookie. */
export const SECURITY = [{ bearer: [] }, { apiKey: [] }, { session: [] }];

/** A union of literals made from a const list, so that the list stays the one source of its values. */
export function literals<const T extends readonly string[]>(
  values: T,
  options?: { description: string },
): TUnion<{ -readonly [K in keyof T]: TLiteral<T[K]> }> {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  ) as TUnion<{ -readonly [K in keyof T]: TLiteral<T[K]> }>;
}
