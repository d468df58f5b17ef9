// A workspace of a test's own, with a key of each name and role in it.

import assert from 'node:assert/strict';
import { createApiKey, createWorkspace, type CreatedKey } from '../../src/auth/api-keys.ts';
import type { Role } from '../../src/auth/roles.ts';
import { withClient } from './db.ts';

/** A new workspace called `name` on the database at `url`, with a key of each name and role. */
export async function workspaceWith<K extends string>(
  url: string,
  name: string,
  roles: Record<K, Role>,
): Promise<{ id: number; keys: Record<K, CreatedKey> }> {
  return withClient(url, async (client) => {
    const workspace = await createWorkspace(client, name);
    assert.ok(workspace !== undefined, `workspace ${name} created`);
    const keys = {} as Record<K, CreatedKey>;
    for (const [keyName, role] of Object.entries(roles) as [K, Role][]) {
      keys[keyName] = await createApiKey(client, { name: keyName, role, workspaceId: workspace.id });
    }
    return { id: workspace.id, keys };
  });
}
