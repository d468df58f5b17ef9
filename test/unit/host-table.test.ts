// The host table read again while an older read is still out: the older one, finishing last, must
// not put back the table from before a change (a domain just added, a brand just set).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Brand } from '../../src/core/brand.ts';
import type { DomainRecord } from '../../src/core/domains.ts';
import { HostTable, type ServedRows } from '../../src/resolve/hosts.ts';
import { memoryLogger } from '../helpers/logs.ts';

const record = (id: number, host: string): DomainRecord => ({
  id,
  host,
  workspaceId: 2,
  rootRedirect: null,
  notFoundRedirect: null,
  expiredRedirect: null,
  createdAt: new Date(0),
  verification: { token: null, status: 'verified', verifiedAt: null, lastCheckedAt: null, failures: 0 },
});

test('a read that began before the last one installed is dropped when it ends last; each read is served in its brand', async () => {
  const answers: ((rows: ServedRows) => void)[] = [];
  const brand: Brand = { name: 'Acme', color: '#112233', logo: null };
  const hosts = new HostTable({
    defaultHost: 'sho.rt',
    defaultAliases: [],
    read: () => new Promise<ServedRows>((resolve) => answers.push(resolve)),
    verifiedOnly: true,
    log: memoryLogger('error').log,
  });
  const older = hosts.refresh();
  const newer = hosts.refresh();
  answers[1]?.({ domains: [record(7, 'new.example.com')], brands: new Map([[2, brand]]) });
  await newer;
  answers[0]?.({ domains: [], brands: new Map() });
  await older;
  assert.equal(hosts.lookup('new.example.com')?.id, 7);
  assert.equal(hosts.lookup('new.example.com')?.brand, brand);
  assert.ok(hosts.lookup('new.example.com')?.pages.get('LINK_NOT_FOUND')?.body.includes('<span>Acme</span>'));
});
