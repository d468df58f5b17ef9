// Waiting for what the system does in the background, with a deadline: a test that waits fails
// naming what it waited for, instead of hanging until the test timeout.

import assert from 'node:assert/strict';

export async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
