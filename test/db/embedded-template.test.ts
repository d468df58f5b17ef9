// A new embedded data folder starts as a copy of the template (src/db/embedded.ts): made once per
// PGlite version, copied into folders that hold nothing, never over a folder that holds a database,
// and left out, with initdb instead, when it cannot be made.

import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { embeddedTemplate, startEmbeddedPostgres } from '../../src/db/embedded.ts';

let scratch: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'shortener-template-'));
});
after(() => rm(scratch, { recursive: true, force: true }));

/** The tables of the public schema of the embedded engine in `dataDir`, and how its folder came to be. */
async function tablesIn(dataDir: string, templateDir: string, problems: Error[] = []): Promise<{ from: string; tables: string[] }> {
  const engine = await startEmbeddedPostgres(dataDir, templateDir, (err) => problems.push(err));
  try {
    const client = new pg.Client({ connectionString: engine.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
      );
      return { from: engine.dataFrom, tables: rows.map((row) => row.name) };
    } finally {
      await client.end();
    }
  } finally {
    await engine.stop();
  }
}

test('a new data folder is a copy of the template, made once; a folder that holds a database is never copied over', async () => {
  const templateDir = join(scratch, 'templates');
  const template = await embeddedTemplate(templateDir);
  assert.ok(existsSync(join(template, 'PG_VERSION')), 'the template is a database cluster');
  assert.deepEqual(readdirSync(templateDir), [template.split('/').pop()], 'nothing half-made is left beside it');
  assert.equal(await embeddedTemplate(templateDir), template, 'made once, then found');

  // A folder with a database in it keeps its own, whatever the template holds later.
  const kept = join(scratch, 'kept');
  assert.deepEqual(await tablesIn(kept, templateDir), { from: 'template', tables: [] });

  // Mark the template, so that a copy can be told from a folder initdb made.
  const marking = new PGlite({ dataDir: template });
  await marking.query('CREATE TABLE from_the_template (one int)');
  await marking.close();

  const fresh = await tablesIn(join(scratch, 'fresh', 'data'), templateDir);
  assert.deepEqual(fresh, { from: 'template', tables: ['from_the_template'] });

  // An empty folder (made by hand, or by an older start) is nothing: it is filled from the template.
  const empty = join(scratch, 'empty');
  await mkdir(empty);
  assert.deepEqual(await tablesIn(empty, templateDir), { from: 'template', tables: ['from_the_template'] });

  assert.deepEqual(await tablesIn(kept, templateDir), { from: 'existing', tables: [] });
});

test('a template that cannot be made costs initdb, not the start: the problem is said and the engine runs', async () => {
  // A file where the template folder should be: nothing can be made under it.
  const blocked = join(scratch, 'a-file');
  await writeFile(blocked, 'not a folder');
  const problems: Error[] = [];
  const started = await tablesIn(join(scratch, 'initdb'), join(blocked, 'templates'), problems);
  assert.deepEqual(started, { from: 'initdb', tables: [] });
  assert.equal(problems.length, 1);
  assert.match(problems[0]?.message ?? '', /ENOTDIR|EEXIST/);
});
