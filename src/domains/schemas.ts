// The shapes of the domains routes, in TypeBox (see links/schemas.ts for what they are used for).

import { Type } from 'typebox';

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
