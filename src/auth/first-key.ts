// A fresh install on the embedded engine (npm ci && npm start on a laptop) has no key, and nobody
// could sign in to the dashboard: the first start makes an admin key of the default workspace and
// says it, once. With DATABASE_URL nothing is made; `npm run keys -- create <name> --role admin` is.

import type { Logger } from 'pino';
import type { Queryable } from '../db/pool.ts';
import { anyKeyExists, createApiKey } from './api-keys.ts';

/** Makes and logs the first admin key if no key was ever made; the secret, or undefined. */
export async function ensureFirstKey(db: Queryable, log: Logger, dashboardUrl: string): Promise<string | undefined> {
  if (await anyKeyExists(db)) return undefined;
  const key = await createApiKey(db, { name: 'first admin', role: 'admin' });
  log.warn(
    { adminKey: key.secret, dashboard: dashboardUrl },
    'first start: made an admin API key; sign in to the dashboard with it. It is shown this once (only its hash is kept): ' +
      'npm run keys -- create <name> --role admin makes more',
  );
  return key.secret;
}
