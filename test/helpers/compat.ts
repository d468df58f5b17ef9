// What the compatible APIs' tests (test/compat/) share: the service listening on a port of its own
// with its click analytics kept and flushed only when asked, and a create through our own API (to
// spend the create limit that a peer's creates share).

import { startApp } from './app.ts';
import { freePort } from './redis.ts';

/**
 * The service on 127.0.0.1:`port` (a free one by default), BASE_URL http://127.0.0.1:<port> unless
 * `env` names another; clicks are counted (ANALYTICS_ENABLED) and flushed by app.clicks.flush().
 */
export async function servedApp(
  t: Parameters<typeof startApp>[0],
  databaseUrl: string,
  env: Record<string, string> = {},
  port?: number,
): Promise<{ app: Awaited<ReturnType<typeof startApp>>['app']; port: number; base: string }> {
  const listenOn = port ?? (await freePort());
  const base = `http://127.0.0.1:${listenOn}`;
  const { app } = await startApp(t, databaseUrl, { BASE_URL: base, ANALYTICS_ENABLED: 'true', CLICK_FLUSH_INTERVAL_MS: '60000', ...env });
  await app.listen({ port: listenOn, host: '127.0.0.1' });
  return { app, port: listenOn, base };
}

/** POST /links of our own API with `secret`, for `url`. */
export function createThroughOurApi(base: string, secret: string, url: string): Promise<Response> {
  return fetch(`${base}/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url }),
  });
}
