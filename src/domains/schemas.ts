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
const Verification = Type.Object(
  {
    status: Type.Union([Type.Literal('pending'), Type.Literal('verified'), Type.Literal('failing')], {
      description:
        'pending: not served until the record is found (and no other workspace may add the host meanwhile); verified: ' +
        'served; failing: the record was not found at the last checks, still served for DOMAIN_CHECK_GRACE checks, then pending.',
    }),
    record: Type.Object(
      {
        type: Type.Literal('TXT'),
        name: Type.String({ examples: ['_shortener.go.example.com'] }),
        value: Type.String({ description: 'The token: the whole value of one TXT record.' }),
      },
      { description: 'The DNS record that proves the workspace controls the host.' },
    ),
    verifiedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the record was last found.' }),
    lastCheckedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    failures: Type.Integer({ description: 'Checks in a row that did not find the record.' }),
  },
  { title: 'DomainVerification' },
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
    verification: Type.Union([Verification, Type.Null()], { description: 'null for the default domain (configured, not verified).' }),
  },
  { title: 'Domain' },
);
export const DomainList = Type.Object({ domains: Type.Array(DomainView) });
export const DomainParams = Type.Object({ host: Type.String() });
export const RemoveDomainQuery = Type.Object(
  { moveLinksTo: Type.Optional(Type.String({ description: 'The host of the domain its links move to.' })) },
  { additionalProperties: false },
);
