// GET, POST /keys and DELETE /keys/:id: an admin manages the keys of its workspace. A new key's
// secret is in the answer of its POST and nowhere else, ever. Revoking ends the key's sessions
// too; a workspace's last active admin key cannot be revoked (revoke_api_key in
// migrations/0005_workspaces.sql decides under a lock).

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { cleanName, NAME_MAX_LENGTH } from '../core/names.ts';
import type { ApiKeyInfo } from './api-keys.ts';
import { actorOf } from '../audit/audit.ts';
import { requireAdmin, requireKey } from './authenticate.ts';
import { roleWithin } from './roles.ts';
import { parseId } from '../core/ids.ts';
import { AppError, errorResponses as errors } from '../errors.ts';
import type { AuthStore } from './store.ts';
import { SECURITY } from '../api/schemas.ts';
import { CreatedKey, CreateKeyBody, KeyList, KeyParams } from './schemas.ts';

export interface KeysDeps {
  store: Pick<AuthStore, 'keys' | 'createKey' | 'revokeKey'>;
  /** Forgets every cached key and session on this instance (a revocation takes effect here at once). */
  forgetAll: () => void;
}

const view = (key: ApiKeyInfo) => ({
  id: key.id,
  name: key.name,
  role: key.role,
  owner: key.personId === null ? null : { id: key.personId, name: key.ownerName ?? '' },
  createdAt: key.createdAt.toISOString(),
  revokedAt: key.revokedAt?.toISOString() ?? null,
});

const LIST_KEYS = {
  summary: "The workspace's API keys (never their secrets)",
  description: 'Admins see every key of the workspace; a person who is not an admin sees their own personal keys.',
  tags: ['keys'],
  security: SECURITY,
  response: { 200: KeyList, ...errors(401, 403, 503) },
};

const CREATE_KEY = {
  summary: 'Create an API key in the workspace, with a role',
  description:
    "The secret is in this answer and nowhere else: only its hash is stored. Made from a person's session, it is their personal key: " +
    'its role at most theirs, revoked when they leave the workspace. Made with an admin API key, it is a service key of the workspace.',
  tags: ['keys'],
  security: SECURITY,
  body: CreateKeyBody,
  response: { 201: CreatedKey, ...errors(400, 401, 403, 415, 503) },
};

const REVOKE_KEY = {
  summary: 'Revoke an API key of the workspace, and end its sessions',
  description:
    "Admins revoke any; a person their own personal keys. Every instance refuses the key within 10 s. The workspace's last active admin key cannot be revoked (409).",
  tags: ['keys'],
  security: SECURITY,
  params: KeyParams,
  response: { 204: { type: 'null', description: 'Revoked.' }, ...errors(401, 403, 404, 409, 503) },
};

export async function keysRoutes(plain: FastifyInstance, { store, forgetAll }: KeysDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/keys',
    {
      schema: LIST_KEYS,
    },
    async function listKeys(request) {
      const key = requireKey(request);
      if (key.role === 'admin') return { keys: (await store.keys(key.workspaceId)).map(view) };
      if (key.personId === null) requireAdmin(request, 'keys');
      return { keys: (await store.keys(key.workspaceId, key.personId ?? undefined)).map(view) };
    },
  );

  app.post(
    '/keys',
    {
      schema: CREATE_KEY,
    },
    async function createKey(request, reply) {
      const key = requireKey(request);
      const { role } = request.body;
      // A person's key carries at most their role; only an admin's API key makes service keys.
      if (key.personId === null) requireAdmin(request, 'keys');
      else if (!roleWithin(role, key.role)) throw new AppError('ROLE_FORBIDDEN', `Your role is ${key.role}: your keys carry at most it.`);
      const name = cleanName(request.body.name);
      if (name === undefined)
        throw new AppError('BODY_INVALID', `name must be 1 to ${NAME_MAX_LENGTH} characters, without control characters.`);
      const person = key.personId === null ? undefined : { id: key.personId, kind: 'personal' as const };
      const made = await store.createKey({ name, role, workspaceId: key.workspaceId, person }, actorOf(key, request.ip));
      reply.header('cache-control', 'no-store');
      return reply
        .code(201)
        .send({ ...view({ ...made, ownerName: person === undefined ? null : key.name, revokedAt: null }), key: made.secret });
    },
  );

  app.delete(
    '/keys/:id',
    {
      schema: REVOKE_KEY,
    },
    async function revokeKey(request, reply) {
      const key = requireKey(request);
      if (key.role !== 'admin' && key.personId === null) requireAdmin(request, 'keys');
      const id = parseId(request.params.id);
      if (id === undefined) throw new AppError('KEY_NOT_FOUND');
      const own = key.role === 'admin' ? undefined : (key.personId ?? undefined);
      const outcome = await store.revokeKey(id, key.workspaceId, actorOf(key, request.ip), own);
      if (outcome === 'not-found') throw new AppError('KEY_NOT_FOUND');
      if (outcome === 'last-admin') throw new AppError('LAST_ADMIN_KEY');
      forgetAll();
      return reply.code(204).send(null);
    },
  );
}
