// The shape of GET /domains/:host/check (check-routes.ts), in TypeBox (see links/schemas.ts for what they are used for).

import { Type, type TSchema } from 'typebox';
import { literals } from '../api/schemas.ts';
import { DNS_PROBLEMS, TLS_PROBLEMS } from './check-rules.ts';

/** A part's problem: a stable code and a sentence; null when the part is ok. */
const problem = (code: TSchema) =>
  Type.Union([Type.Object({ code, message: Type.String({ description: 'What is wrong and what to do, for people.' }) }), Type.Null()], {
    description: 'null: ok.',
  });

const DnsRecord = Type.Object({
  type: literals(['CNAME', 'A', 'AAAA'] as const),
  name: Type.String({ examples: ['go.example.com'] }),
  value: Type.String({ examples: ['edge.example.net'] }),
});

const Certificate = Type.Object(
  {
    subject: Type.Union([Type.String(), Type.Null()], { description: "The subject's common name." }),
    altNames: Type.Array(Type.String(), { description: 'The names it covers (subjectAltName).' }),
    issuer: Type.Union([Type.String(), Type.Null()], { description: "The issuer's organisation and common name." }),
    validFrom: Type.String({ format: 'date-time' }),
    validTo: Type.String({ format: 'date-time' }),
    daysLeft: Type.Integer({ description: 'Whole days until validTo; negative once past.' }),
  },
  { title: 'DomainCertificate' },
);

export const DomainCheckView = Type.Object(
  {
    host: Type.String(),
    checkedAt: Type.String({ format: 'date-time' }),
    dns: Type.Object({
      ok: Type.Boolean({ description: 'Its CNAME chain reaches the target host, or all its addresses are the target addresses.' }),
      summary: Type.String({ description: 'In people’s words: "Points to edge.example.net", or the problem.' }),
      problem: problem(literals(DNS_PROBLEMS, { description: DNS_PROBLEMS.join(', ') })),
      target: Type.Object({
        host: Type.Union([Type.String(), Type.Null()], { description: 'DOMAIN_TARGET_HOST.' }),
        addresses: Type.Array(Type.String(), { description: "DOMAIN_TARGET_ADDRESSES, or else the target host's addresses." }),
      }),
      found: Type.Object({
        cname: Type.Array(Type.String(), { description: 'The CNAME chain, in order.' }),
        a: Type.Array(Type.String()),
        aaaa: Type.Array(Type.String()),
      }),
      records: Type.Array(DnsRecord, {
        description: 'What to set: a CNAME to the target host, or (for the root of a zone, which cannot be a CNAME) A and AAAA records.',
      }),
    }),
    tls: Type.Object({
      ok: Type.Boolean(),
      summary: Type.String({ description: 'In people’s words: "Certificate valid until 12 March 2027 (96 days)", or the problem.' }),
      problem: problem(literals(TLS_PROBLEMS, { description: TLS_PROBLEMS.join(', ') })),
      address: Type.Union([Type.String(), Type.Null()], { description: 'The address connected to; null: not checked.' }),
      port: Type.Integer(),
      certificate: Type.Union([Certificate, Type.Null()], { description: 'null: no certificate was received.' }),
    }),
  },
  { title: 'DomainCheck' },
);
