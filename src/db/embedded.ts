// The embedded default: with no DATABASE_URL, a PGlite engine (Postgres compiled to WASM) keeps its
// data in a local folder and is served over the Postgres wire protocol on loopback, so the very
// same `pg` code path runs against it as against a real server.
//
// A new data folder starts as a copy of a template: a database cluster fresh from PGlite's initdb,
// made once per PGlite version (by `npm ci`'s prepare, scripts/prepare.ts, or else by the
// first start that finds none) and kept in EMBEDDED_TEMPLATE_DIR. initdb in WASM takes 2.6 s; the
// copy takes 50 ms (docs/performance.md#start-up). Nothing of a deployment is in the template: the
// migrations, and everything a start writes, run on the copy.

import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  readonly url: string;
  /** How the data folder came to be: it was there, copied from the template, or made by initdb. */
  readonly dataFrom: 'existing' | 'template' | 'initdb';
  stop(): Promise<void>;
}

/** The pool (one connection) and the migration runner, with room for a reconnect. */
const EMBEDDED_MAX_CONNECTIONS = 3;

/** EMBEDDED_TEMPLATE_DIR's default: the checkout's own cache folder, beside Node's compile cache (src/process/main.ts). */
const DEFAULT_TEMPLATE_DIR = new URL('../../node_modules/.cache/shortener', import.meta.url).pathname;

/** pg_trgm: the link list's search index (migrations/0005_workspaces.sql). */
const EXTENSIONS = { pg_trgm };

export async function startEmbeddedPostgres(
  dataDir: string,
  templateDir: string | undefined,
  onTemplateProblem: (err: Error) => void = () => {},
): Promise<EmbeddedPostgres> {
  let dataFrom: EmbeddedPostgres['dataFrom'] = 'existing';
  if (!isCluster(dataDir)) {
    dataFrom = 'initdb';
    try {
      if (await copyTemplate(await embeddedTemplate(templateDir), dataDir)) dataFrom = 'template';
    } catch (err) {
      // An unwritable cache folder (a read-only install) costs time, not the start: initdb below.
      onTemplateProblem(err as Error);
    }
    await mkdir(dataDir, { recursive: true });
  }
  const db = await PGlite.create({ dataDir, extensions: EXTENSIONS });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: EMBEDDED_MAX_CONNECTIONS });
  await server.start();
  const port = server.getServerConn().split(':').pop();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dataFrom,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

/**
 * The template for this PGlite version under `templateDir` (EMBEDDED_TEMPLATE_DIR; unset: the
 * checkout's cache folder), made if it is not there yet: initdb
 * into a folder of this process's own, then renamed into place, so that a start that stops halfway,
 * or two that make it at once, never leave a half-made template.
 */
export async function embeddedTemplate(templateDir: string = DEFAULT_TEMPLATE_DIR): Promise<string> {
  const template = join(templateDir, `pglite-${pgliteVersion()}`);
  if (isCluster(template)) return template;
  await mkdir(templateDir, { recursive: true });
  const making = `${template}.making-${process.pid}-${Date.now()}`;
  try {
    const db = await PGlite.create({ dataDir: making, extensions: EXTENSIONS });
    await db.close();
    await rename(making, template).catch((err: NodeJS.ErrnoException) => {
      // Another process made it first: theirs is as good as ours.
      if (!isCluster(template)) throw err;
    });
  } finally {
    await rm(making, { recursive: true, force: true });
  }
  return template;
}

/**
 * Copies the template to `dataDir` unless something is already there (an empty folder counts as
 * nothing): through a folder of its own and a rename, so a copy cut short is never taken for a cluster.
 */
async function copyTemplate(template: string, dataDir: string): Promise<boolean> {
  if (existsSync(dataDir)) {
    if (readdirSync(dataDir).length > 0) return false;
    await rmdir(dataDir);
  }
  await mkdir(dirname(dataDir), { recursive: true });
  const copying = `${dataDir}.copying-${process.pid}`;
  try {
    // 971 files, 39 MB: cpSync takes 50 ms here, fs.promises.cp 490 ms.
    cpSync(template, copying, { recursive: true });
    await rename(copying, dataDir);
  } finally {
    await rm(copying, { recursive: true, force: true });
  }
  return true;
}

/** Postgres writes PG_VERSION into a data folder it has initialized. */
function isCluster(dir: string): boolean {
  return existsSync(join(dir, 'PG_VERSION'));
}

/** The installed PGlite's version: a template is only good for the engine that made it. */
function pgliteVersion(): string {
  let dir = dirname(new URL(import.meta.resolve('@electric-sql/pglite')).pathname);
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@electric-sql/pglite' && pkg.version !== undefined) return pkg.version;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the version of @electric-sql/pglite');
    dir = parent;
  }
}
