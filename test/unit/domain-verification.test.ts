// Domain verification's pure rules (src/core/domain-verification.ts) and the DNS servers a setting
// may name (src/config/schema.ts).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { afterCheck, isServed, recordName, recordsHold } from '../../src/core/domain-verification.ts';
import { isDnsServer } from '../../src/config/schema.ts';

const NOW = new Date('2026-12-06T08:00:00Z');
const BEFORE = new Date('2026-12-01T08:00:00Z');

describe('domain verification', () => {
  test('the record is _shortener.<host>, and holds the token as one whole value (chunks joined, as RFC 7208 does)', () => {
    assert.equal(recordName('go.example.com'), '_shortener.go.example.com');
    assert.equal(recordsHold([['v=spf1 -all'], ['abc', 'def']], 'abcdef'), true);
    assert.equal(recordsHold([['xabcdef']], 'abcdef'), false);
    assert.equal(recordsHold([], 'abcdef'), false);
  });

  test('found: verified, its failures forgotten; unanswered: nothing changes; absent: pending stays pending', () => {
    const rules = { grace: 2 };
    assert.deepEqual(afterCheck({ status: 'failing', failures: 2, verifiedAt: BEFORE }, 'found', NOW, rules), {
      status: 'verified',
      failures: 0,
      verifiedAt: NOW,
    });
    const verified = { status: 'verified', failures: 0, verifiedAt: BEFORE } as const;
    assert.deepEqual(afterCheck(verified, 'unanswered', NOW, rules), verified);
    const pending = { status: 'pending', failures: 0, verifiedAt: null } as const;
    assert.deepEqual(afterCheck(pending, 'absent', NOW, rules), pending);
  });

  test('a verified domain that loses its record is failing (served) for `grace` checks, then pending (not served)', () => {
    const rules = { grace: 2 };
    let state: Parameters<typeof afterCheck>[0] = { status: 'verified', failures: 0, verifiedAt: BEFORE };
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      state = afterCheck(state, 'absent', NOW, rules);
      seen.push(`${state.status}:${isServed(state.status)}`);
    }
    assert.deepEqual(seen, ['failing:true', 'failing:true', 'pending:false', 'pending:false']);
    assert.equal(afterCheck({ status: 'verified', failures: 0, verifiedAt: BEFORE }, 'absent', NOW, { grace: 0 }).status, 'pending');
  });

  test('DOMAIN_DNS_RESOLVERS takes IP addresses with an optional port, as Resolver#setServers does', () => {
    for (const ok of ['1.1.1.1', '127.0.0.1:5353', '[2001:db8::1]:53', '2001:db8::1', '[::1]']) assert.equal(isDnsServer(ok), true, ok);
    for (const bad of ['dns.example.com', '1.1.1.1:0', '1.1.1.1:70000', '300.1.1.1', '', 'udp://1.1.1.1'])
      assert.equal(isDnsServer(bad), false, bad);
  });
});
