// The shapes of the keys and session routes, in TypeBox (see links/schemas.ts for what they are used for).

import { Type, type Static } from 'typebox';
import { literals } from '../api/schemas.ts';
import { NAME_MAX_LENGTH } from '../core/names.ts';
import { ROLES } from './roles.ts';

const Role = literals(ROLES);

const Owner = Type.Union([Type.Object({ id: Type.Integer(), name: Type.String() }), Type.Null()], {
  description: 'The person a personal key belongs to; null for a service key of the workspace.',
});

export const KeyInfo = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  role: Role,
  owner: Owner,
  createdAt: Type.String({ format: 'date-time' }),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const KeyList = Type.Object({ keys: Type.Array(KeyInfo) });

export const CreateKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: NAME_MAX_LENGTH, description: 'For people: who or what uses the key.' }),
    role: Role,
  },
  { additionalProperties: false },
);
export type CreateKeyBody = Static<typeof CreateKeyBody>;

export const CreatedKey = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  role: Role,
  owner: Owner,
  createdAt: Type.String({ format: 'date-time' }),
  key: Type.String({ description: 'The secret, shown this once: only its hash is stored.' }),
});

export const KeyParams = Type.Object({ id: Type.String() });

export const SignInBody = Type.Object({ key: Type.String({ description: 'An API key (sk_…).' }) }, { additionalProperties: false });
export type SignInBody = Static<typeof SignInBody>;

export const SessionInfo = Type.Object({
  workspace: Type.Object({ id: Type.Integer(), name: Type.String() }),
  key: Type.Object({ id: Type.Integer(), name: Type.String(), role: Role }),
  csrfToken: Type.String({ description: 'Send it as X-CSRF-Token with every POST, PATCH, PUT and DELETE made with the session cookie.' }),
  expiresAt: Type.String({ format: 'date-time' }),
  person: Type.Union(
    [Type.Object({ id: Type.Integer(), name: Type.String(), email: Type.String(), emailVerified: Type.Boolean() }), Type.Null()],
    { description: 'The person signed in; null for a session opened with an API key.' },
  ),
  pending: Type.Union([Type.Literal('SSO_REQUIRED'), Type.Literal('SECOND_FACTOR_REQUIRED'), Type.Null()], {
    description:
      'What the workspace requires that this sign-in lacks: until it is met, only the session, the profile and switching workspace answer.',
  }),
  workspaces: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), role: Role }), {
    description: "The person's workspaces, to switch between (POST /auth/session/workspace); empty for an API key's session.",
  }),
});
