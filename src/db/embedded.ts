// The embedded default: with no DATABASE_URL, a PGlite engine (Postgres compiled to WASM) keeps its
// data in a local folder and is served over the Postgres wire protocol on loopback, so the very
// same `pg` code path runs against it as against a real server.

import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  readonly url: string;
  stop(): Promise<void>;
}

/** The pool (one connection) and the migration runner, with room for a reconnect. */
const EMBEDDED_MAX_CONNECTIONS = 3;

export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  await mkdir(dataDir, { recursive: true });
  // pg_trgm: the link list's search index (migrations/0005_workspaces.sql).
  const db = await PGlite.create({ dataDir, extensions: { pg_trgm } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: EMBEDDED_MAX_CONNECTIONS });
  await server.start();
  const port = server.getServerConn().split(':').pop();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
