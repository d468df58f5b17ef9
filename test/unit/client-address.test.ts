// The client address a request is read as (src/edge/client-address.ts) is proxy-addr's, the rule
// Fastify's request.ip follows: for generated peers and X-Forwarded-For fields, under each shape of
// TRUST_PROXY, including the fields read without proxy-addr (one dotted IPv4 address).

import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import proxyAddr from '@fastify/proxy-addr';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { pino } from 'pino';
import { trustProxyRule } from '../../src/core/trust-proxy.ts';
import { addressOfReader } from '../../src/edge/client-address.ts';

const log = pino({ level: 'silent' });

const octet = fc.oneof(fc.integer({ min: 0, max: 255 }).map(String), fc.constantFrom('00', '010', '256', '0x7f', '1e1'));
const ipv4 = fc.tuple(octet, octet, octet, octet).map((parts) => parts.join('.'));
const ipv6 = fc.constantFrom('::1', '2001:db8::5', '::ffff:127.0.0.1', 'fe80::1', 'not-an-address', '');
const address = fc.oneof(
  { weight: 4, arbitrary: ipv4 },
  { weight: 1, arbitrary: ipv6 },
  { weight: 2, arbitrary: fc.constantFrom('127.0.0.1', '10.1.2.3', '192.168.0.9', '203.0.113.7') },
);
const field = fc.oneof(
  { weight: 4, arbitrary: address },
  { weight: 2, arbitrary: fc.array(address, { minLength: 2, maxLength: 4 }).map((list) => list.join(', ')) },
  { weight: 1, arbitrary: address.map((one) => ` ${one} `) },
);

for (const rule of ['loopback', '10.0.0.0/8, 127.0.0.1', 'true', 'uniquelocal, linklocal']) {
  test(`TRUST_PROXY=${rule}: the address read is proxy-addr's (or the peer, where it names no address)`, () => {
    const trust = trustProxyRule(rule);
    assert.ok(trust !== undefined);
    const addressOf = addressOfReader(trust, log);
    fc.assert(
      fc.property(address, fc.option(field, { nil: undefined }), (peer, forwardedFor) => {
        const request = { headers: { 'x-forwarded-for': forwardedFor }, socket: { remoteAddress: peer } } as unknown as IncomingMessage;
        const expected = forwardedFor === undefined ? peer : proxyAddr(request, trust);
        // Twice: the second answer comes from what the reader remembered.
        for (let i = 0; i < 2; i++) {
          assert.equal(addressOf(peer, forwardedFor), forwardedFor === undefined || ipaddr.isValid(expected) ? expected : peer);
        }
      }),
      { numRuns: 3000 },
    );
  });
}
