// Keys of each name and role for a test: in the default workspace, or in a workspace of its own.

import assert from 'node:assert/strict';
import type pg from 'pg';
import { createApiKey, createWorkspace, type CreatedKey } from '../../src/auth/api-keys.ts';
import type { Role } from '../../src/auth/roles.ts';
import { DEFAULT_WORKSPACE_ID } from '../../src/core/link.ts';
import { withClient } from './db.ts';

async function makeKeys<K extends string>(client: pg.Client, roles: Record<K, Role>, workspaceId: number): Promise<Record<K, CreatedKey>> {
  const keys = {} as Record<K, CreatedKey>;
  for (const [keyName, role] of Object.entries(roles) as [K, Role][]) {
    keys[keyName] = await createApiKey(client, { name: keyName, role, workspaceId });
  }
  return keys;
}

/** A key of each name and role in the workspace `workspaceId` (the default one) of the database at `url`. */
export async function keysWith<K extends string>(
  url: string,
  roles: Record<K, Role>,
  workspaceId = DEFAULT_WORKSPACE_ID,
): Promise<Record<K, CreatedKey>> {
  return withClient(url, (client) => makeKeys(client, roles, workspaceId));
}

/** A new workspace called `name` on the database at `url`, with a key of each name and role. */
export async function workspaceWith<K extends string>(
  url: string,
  name: string,
  roles: Record<K, Role>,
): Promise<{ id: number; keys: Record<K, CreatedKey> }> {
  return withClient(url, async (client) => {
    const workspace = await createWorkspace(client, name);
    assert.ok(workspace !== undefined, `workspace ${name} created`);
    return { id: workspace.id, keys: await makeKeys(client, roles, workspace.id) };
  });
}
