// SET_NEWER, the only way the service writes a link into Redis: whatever order two states of a
// link arrive in, Redis ends with the newer one. A deletion (a tombstone) is the newest state a
// link can have; an entry in a state this version does not know is left alone if it is newer.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { SET_NEWER } from '../../src/redis/entries.ts';
import { deleteKeys, randomPrefix, SHARED_REDIS_URL } from '../helpers/redis.ts';

const prefix = randomPrefix('set_newer');
let redis: Redis;
before(() => {
  redis = new Redis(SHARED_REDIS_URL);
});
after(async () => {
  await deleteKeys(SHARED_REDIS_URL, prefix);
  redis.disconnect();
});

const write = (key: string, value: string, version: number) => redis.eval(SET_NEWER, 1, key, value, version, 60_000);

test('an older state never replaces a newer one, a tombstone included; a newer one always does', async () => {
  const cases: { stored: string; value: string; version: number; kept: boolean }[] = [
    { stored: '', value: 'a0. https://e.com/', version: 0, kept: false },
    { stored: 'a0. https://e.com/', value: 'a1. https://e.com/v1', version: 1, kept: false },
    { stored: 'a2. https://e.com/v2', value: 'a1. https://e.com/v1', version: 1, kept: true },
    { stored: 'd3. https://e.com/v2', value: 'a2. https://e.com/v2', version: 2, kept: true },
    { stored: 'x4. https://e.com/v2', value: 'a3. https://e.com/v2', version: 3, kept: true },
    { stored: 'x4. https://e.com/v2', value: 'a0. https://e.com/', version: 0, kept: true },
    { stored: 'x4. https://e.com/v2', value: 'x4. https://e.com/v2', version: 4, kept: true },
    { stored: 'a3. https://e.com/v2', value: 'x4. https://e.com/v2', version: 4, kept: false },
    { stored: 'z9. future', value: 'a8. https://e.com/', version: 8, kept: true },
  ];
  for (const [i, c] of cases.entries()) {
    const key = `${prefix}link:case${i}`;
    await redis.set(key, c.stored);
    assert.equal(await write(key, c.value, c.version), c.kept ? 0 : 1, JSON.stringify(c));
    assert.equal(await redis.get(key), c.kept ? c.stored : c.value, JSON.stringify(c));
  }
});
