// The shapes of the people routes, in TypeBox (see links/schemas.ts for what they are used for).

import { Type, type Static, type TSchema } from 'typebox';
import { literals } from '../api/schemas.ts';
import { ROLES } from '../auth/roles.ts';

const Role = literals(ROLES);
const DateTime = Type.String({ format: 'date-time' });
const Password = Type.String({ maxLength: 1024, description: 'At least 8 characters; not one of the most common passwords.' });
const Email = Type.String({ maxLength: 254 });
const Name = Type.String({ maxLength: 200 });

export const PersonView = Type.Object({ id: Type.Integer(), name: Type.String(), email: Type.String(), emailVerified: Type.Boolean() });

export const SetupState = Type.Object({
  needed: Type.Boolean({ description: 'No person exists yet: the first admin is to be set up.' }),
  tokenRequired: Type.Boolean({ description: 'This request came from another address than loopback: the setup token is needed.' }),
  mail: Type.Boolean({ description: 'Whether this service sends email (SMTP_URL).' }),
});

export const AuthOptions = Type.Object({
  signedIn: Type.Boolean({
    description:
      'The request came with a live session (GET /auth/session reads it): the dashboard asks, rather than take a 401 on every signed-out load.',
  }),
  setupNeeded: Type.Boolean(),
  mail: Type.Boolean(),
  sso: Type.Boolean({ description: 'Single sign-on is set up: GET /auth/sso/start signs in (docs/sso.md).' }),
  ssoName: Type.Optional(Type.String({ description: 'With sso: what to call it, "Sign in with <ssoName>" (OIDC_NAME).' })),
  passkeys: Type.Boolean(),
});

export const SetupBody = Type.Object(
  { name: Name, email: Email, password: Password, token: Type.Optional(Type.String({ maxLength: 100 })) },
  { additionalProperties: false },
);
export type SetupBody = Static<typeof SetupBody>;

export const PasswordSignInBody = Type.Object({ email: Email, password: Password }, { additionalProperties: false });
export type PasswordSignInBody = Static<typeof PasswordSignInBody>;

export const ResetRequestBody = Type.Object({ email: Email }, { additionalProperties: false });
export type ResetRequestBody = Static<typeof ResetRequestBody>;

export const ResetBody = Type.Object({ token: Type.String({ maxLength: 100 }), password: Password }, { additionalProperties: false });
export type ResetBody = Static<typeof ResetBody>;

export const TokenBody = Type.Object({ token: Type.String({ maxLength: 100 }) }, { additionalProperties: false });
export type TokenBody = Static<typeof TokenBody>;

export const ProfileBody = Type.Object({ name: Name }, { additionalProperties: false });
export type ProfileBody = Static<typeof ProfileBody>;

export const PasswordChangeBody = Type.Object({ currentPassword: Password, newPassword: Password }, { additionalProperties: false });
export type PasswordChangeBody = Static<typeof PasswordChangeBody>;

export const EmailChangeBody = Type.Object({ email: Email, password: Password }, { additionalProperties: false });
export type EmailChangeBody = Static<typeof EmailChangeBody>;

export const SessionList = Type.Object({
  sessions: Type.Array(
    Type.Object({
      id: Type.String(),
      createdAt: DateTime,
      lastSeenAt: DateTime,
      expiresAt: DateTime,
      address: Type.Union([Type.String(), Type.Null()], { description: 'Truncated: an IPv4 /24, an IPv6 /48.' }),
      userAgent: Type.Union([Type.String(), Type.Null()]),
      current: Type.Boolean(),
    }),
  ),
});

export const IdParams = Type.Object({ id: Type.String({ maxLength: 40 }) });
export type IdParams = Static<typeof IdParams>;

export const TokenParams = Type.Object({ token: Type.String({ maxLength: 100 }) });
export type TokenParams = Static<typeof TokenParams>;

export const SwitchBody = Type.Object({ workspaceId: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
export type SwitchBody = Static<typeof SwitchBody>;

export const InvitationPreview = Type.Object({
  workspace: Type.Object({ name: Type.String() }),
  email: Type.String(),
  role: Role,
  invitedBy: Type.Union([Type.Object({ name: Type.String() }), Type.Null()]),
  expiresAt: DateTime,
  account: Type.Boolean({ description: 'Whether a person with this email address exists (then: sign in, and accept).' }),
});

export const AcceptBody = Type.Object(
  { name: Type.Optional(Name), password: Type.Optional(Password) },
  { additionalProperties: false, description: 'A new account: name and password. Signed in as the invited person: {}.' },
);
export type AcceptBody = Static<typeof AcceptBody>;

export const MemberView = Type.Object({
  id: Type.Integer({ description: "The person's id." }),
  name: Type.String(),
  email: Type.String(),
  emailVerified: Type.Boolean(),
  role: Role,
  joinedAt: DateTime,
  you: Type.Boolean(),
});
export const MemberList = Type.Object({ members: Type.Array(MemberView) });

export const RoleBody = Type.Object({ role: Role }, { additionalProperties: false });
export type RoleBody = Static<typeof RoleBody>;

export const ResetLink = Type.Object({ url: Type.String(), expiresAt: DateTime });

export const InvitationView = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  role: Role,
  invitedBy: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String() }), Type.Null()]),
  createdAt: DateTime,
  expiresAt: DateTime,
});
export const InvitationList = Type.Object({ invitations: Type.Array(InvitationView) });
export const CreatedInvitation = Type.Object({
  ...InvitationView.properties,
  sent: Type.Boolean({ description: 'Mailed to the address; when false (no SMTP_URL), pass `url` on yourself.' }),
  url: Type.Optional(Type.String({ description: 'The invitation link, when it was not mailed. Single-use; it expires.' })),
});

export const InviteBody = Type.Object({ email: Email, role: Role }, { additionalProperties: false });
export type InviteBody = Static<typeof InviteBody>;

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Brand = Type.Object(
  {
    name: Nullable(Type.String({ description: "Shown to visitors on its domains' pages; 1 to 60 characters (400 BRAND_NAME_INVALID)." })),
    color: Nullable(Type.String({ description: '#rrggbb, lowercase; #rgb and capitals are taken (400 BRAND_COLOR_INVALID).' })),
    logo: Nullable(
      Type.String({
        description:
          'A data: URL (data:image/png;base64,…) of a PNG, JPEG or WebP image of at most 32 KiB (400 BRAND_LOGO_TOO_LARGE, ' +
          'BRAND_LOGO_TYPE by its bytes: SVG is refused, BRAND_LOGO_INVALID for anything else).',
      }),
    ),
  },
  { description: "The brand visitors see on the workspace's domains (dead links, password forms). null: the service's own." },
);

export const WorkspaceSettings = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  joinDomain: Type.Union([Type.String(), Type.Null()]),
  requireSecondFactor: Type.Boolean(),
  requireSso: Type.Boolean(),
  auditRetentionDays: Type.Integer(),
  brand: Brand,
  defaultDomain: Nullable(
    Type.String({ description: "The host of the domain a create naming no domain goes on; null: the deployment's default domain." }),
  ),
  sessionHours: Nullable(Type.Integer({ description: 'The most hours a session in the workspace lasts; null: SESSION_TTL_HOURS.' })),
  defaults: Type.Object(
    {
      domain: Type.String({ description: "The deployment's default domain (BASE_URL's host)." }),
      sessionHours: Type.Number({ description: 'SESSION_TTL_HOURS: how long a session lasts when sessionHours is null.' }),
    },
    { description: 'What null means for defaultDomain and sessionHours.' },
  ),
  canRequireSso: Type.Boolean({
    description:
      'Whether this session may turn requireSso on: single sign-on is set up, and the session signed in with it (else it would be locked out).',
  }),
  canRequireSecondFactor: Type.Boolean({
    description: 'Whether this session may turn requireSecondFactor on: it signed in with a second factor (else it would be locked out).',
  }),
});

export const WorkspaceSettingsBody = Type.Object(
  {
    name: Type.Optional(Name),
    joinDomain: Type.Optional(Type.Union([Type.String({ maxLength: 253 }), Type.Null()])),
    auditRetentionDays: Type.Optional(Type.Integer()),
    requireSso: Type.Optional(
      Type.Boolean({
        description:
          "Members' sessions must sign in by single sign-on. Turned on only from a session signed in by SSO (409 SSO_SIGN_IN_FIRST).",
      }),
    ),
    requireSecondFactor: Type.Optional(
      Type.Boolean({
        description:
          "Members' sessions must sign in with a passkey or a second factor (docs/second-factors.md). Turned on only from a session " +
          'that did (409 SECOND_FACTOR_FIRST).',
      }),
    ),
    brand: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
          color: Type.Optional(Nullable(Type.String({ maxLength: 20 }))),
          // No maxLength: one too large is a 400 BRAND_LOGO_TOO_LARGE (brand.ts), within the route's body limit.
          logo: Type.Optional(Nullable(Type.String())),
        },
        { description: 'Each part left out is kept; null removes it.', additionalProperties: false },
      ),
    ),
    defaultDomain: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 253,
          description:
            "A verified domain of this workspace (400 DEFAULT_DOMAIN_UNKNOWN, 409 DOMAIN_NOT_VERIFIED), or null for the deployment's.",
        }),
      ),
    ),
    sessionHours: Type.Optional(Nullable(Type.Integer({ description: '1 to 8760 (400 SESSION_HOURS_INVALID), or null.' }))),
  },
  { additionalProperties: false },
);
export type WorkspaceSettingsBody = Static<typeof WorkspaceSettingsBody>;

export const JoinableList = Type.Object({ workspaces: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() })) });
