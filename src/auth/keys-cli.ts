// `npm run keys -- create <name> | list | revoke <id>`: API keys, on DATABASE_URL (or the embedded
// engine, while the service is not running on it). A created key is printed once and never again.

import { parseArgs } from 'node:util';
import pg from 'pg';
import { ConfigError, loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { createLogger } from '../logger.ts';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.ts';

const print = (line: string) => process.stdout.write(`${line}\n`);
const USAGE = 'usage: npm run keys -- create <name> | list | revoke <id>';

async function run(db: pg.Pool, command: string | undefined, args: string[]): Promise<number> {
  if (command === 'create' && args.length === 1 && args[0] !== undefined && args[0].trim().length > 0 && args[0].length <= 100) {
    const key = await createApiKey(db, args[0].trim());
    print(JSON.stringify({ id: key.id, name: key.name, key: key.secret }));
    console.error('Keep this key now: it is stored only as a hash and cannot be shown again.');
    return 0;
  }
  if (command === 'list' && args.length === 0) {
    for (const key of await listApiKeys(db)) {
      print(JSON.stringify({ id: key.id, name: key.name, createdAt: key.createdAt, revokedAt: key.revokedAt }));
    }
    return 0;
  }
  // An id is a bigint in Postgres; more digits than a safe integer has would be refused there.
  if (command === 'revoke' && args.length === 1 && /^\d{1,15}$/.test(args[0] ?? '')) {
    const revoked = await revokeApiKey(db, Number(args[0]));
    print(revoked ? `key ${args[0]} revoked (every instance refuses it within 10 s)` : `no active key ${args[0]}`);
    return revoked ? 0 : 1;
  }
  console.error(USAGE);
  return 64; // EX_USAGE
}

try {
  const { positionals } = parseArgs({ allowPositionals: true });
  const [command, ...args] = positionals;
  const config = loadConfig();
  const log = createLogger({ ...config, logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel });
  const database = await openDatabase(config, log);
  try {
    await migrate(database.url, log);
    const db = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      process.exitCode = await run(db, command, args);
    } finally {
      await db.end();
    }
  } finally {
    await database.stop();
  }
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exitCode = err instanceof ConfigError ? 78 : 1;
}
