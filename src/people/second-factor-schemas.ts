// The shapes of the second-factor routes, in TypeBox (see links/schemas.ts for what they are used for):
// passkeys, the authenticator app, recovery codes and the second step of a sign-in. The WebAuthn
// objects are the browser's JSON (PublicKeyCredential.toJSON(), @simplewebauthn/browser), bounded;
// their contents are checked by @simplewebauthn/server.

import { Type, type Static } from 'typebox';
import { literals } from '../api/schemas.ts';

const DateTime = Type.String({ format: 'date-time' });
const Name = Type.String({ maxLength: 200 });
const B64url = (maxLength: number) => Type.String({ maxLength, pattern: '^[A-Za-z0-9_-]*$' });
const Ticket = Type.String({ maxLength: 100, description: 'From the answer of POST /auth/sign-in.' });
const Code = Type.String({ maxLength: 20, description: 'The six digits the authenticator app shows now.' });

export const SECOND_STEP_METHODS = ['totp', 'passkey', 'recovery-code'] as const;

const Credential = {
  id: B64url(1400),
  rawId: B64url(1400),
  type: Type.Literal('public-key'),
  authenticatorAttachment: Type.Optional(literals(['platform', 'cross-platform'] as const)),
  clientExtensionResults: Type.Object({}, { additionalProperties: true }),
};

export const RegistrationResponse = Type.Object(
  {
    ...Credential,
    response: Type.Object({
      clientDataJSON: B64url(2048),
      attestationObject: B64url(4096),
      authenticatorData: Type.Optional(B64url(4096)),
      transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 8 })),
      publicKeyAlgorithm: Type.Optional(Type.Integer()),
      publicKey: Type.Optional(B64url(2048)),
    }),
  },
  { description: 'What navigator.credentials.create() gave, as JSON (@simplewebauthn/browser startRegistration).' },
);

export const AuthenticationResponse = Type.Object(
  {
    ...Credential,
    response: Type.Object({
      clientDataJSON: B64url(2048),
      authenticatorData: B64url(2048),
      signature: B64url(1024),
      userHandle: Type.Optional(B64url(128)),
    }),
  },
  { description: 'What navigator.credentials.get() gave, as JSON (@simplewebauthn/browser startAuthentication).' },
);
export type AuthenticationResponse = Static<typeof AuthenticationResponse>;

/** The options a browser's WebAuthn call takes (PublicKeyCredentialCreationOptionsJSON or …RequestOptionsJSON). */
export const CeremonyOptions = Type.Object(
  { options: Type.Object({ challenge: Type.String() }, { additionalProperties: true }) },
  {
    description: 'Pass `options` to navigator.credentials (as @simplewebauthn/browser does); its challenge is good for five minutes, once.',
  },
);

export const PasskeyView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  createdAt: DateTime,
  lastUsedAt: Type.Union([DateTime, Type.Null()]),
  backedUp: Type.Boolean({ description: 'Synced between devices (a passkey manager), as the authenticator said when it was made.' }),
});

const RecoveryCodeList = Type.Array(Type.String(), {
  description: 'Ten recovery codes, each good once: shown this once, only their hashes are kept.',
});

export const SecondFactors = Type.Object({
  passkeysAvailable: Type.Boolean({ description: 'Whether this service offers passkeys (BASE_URL is https, or http on localhost).' }),
  passkeys: Type.Array(PasskeyView),
  totp: Type.Object({
    enabled: Type.Boolean(),
    pending: Type.Boolean({ description: 'A set-up is started and waits for a code to confirm it.' }),
  }),
  recoveryCodes: Type.Object({ remaining: Type.Integer({ description: 'Unused recovery codes.' }) }),
  required: Type.Boolean({ description: 'A workspace of yours requires a second factor.' }),
});

export const PasskeyAdded = Type.Object({
  passkey: PasskeyView,
  recoveryCodes: Type.Union([RecoveryCodeList, Type.Null()], { description: 'Made with your first second factor; null after.' }),
});

export const PasskeyBody = Type.Object({ name: Name, response: RegistrationResponse }, { additionalProperties: false });
export type PasskeyBody = Static<typeof PasskeyBody>;

export const PasskeyRenameBody = Type.Object({ name: Name }, { additionalProperties: false });
export type PasskeyRenameBody = Static<typeof PasskeyRenameBody>;

export const PasskeySignInOptionsBody = Type.Object(
  { ticket: Type.Optional(Ticket) },
  { additionalProperties: false, description: 'With the ticket of a password sign-in: the options of its second step.' },
);
export type PasskeySignInOptionsBody = Static<typeof PasskeySignInOptionsBody>;

export const PasskeySignInBody = Type.Object({ response: AuthenticationResponse }, { additionalProperties: false });
export type PasskeySignInBody = Static<typeof PasskeySignInBody>;

export const TotpEnrolment = Type.Object({
  secret: Type.String({ description: 'The secret in base32, for an app that cannot scan the QR code.' }),
  uri: Type.String({ description: 'otpauth://totp/…: what the QR code holds.' }),
  qrSvg: Type.String({ description: 'The URI as a QR code (SVG).' }),
});

export const CodeBody = Type.Object({ code: Code }, { additionalProperties: false });
export type CodeBody = Static<typeof CodeBody>;

export const TotpEnabled = Type.Object({
  enabled: Type.Literal(true),
  recoveryCodes: Type.Union([RecoveryCodeList, Type.Null()], { description: 'Made with your first second factor; null after.' }),
});

export const TotpDisableBody = Type.Union(
  [
    Type.Object({ code: Code }, { additionalProperties: false }),
    Type.Object({ password: Type.String({ maxLength: 1024 }) }, { additionalProperties: false }),
  ],
  { description: 'A code of the app, or your password.' },
);
export type TotpDisableBody = Static<typeof TotpDisableBody>;

export const RecoveryCodes = Type.Object({ codes: RecoveryCodeList });

export const SecondStepBody = Type.Union(
  [
    Type.Object({ ticket: Ticket, code: Code }, { additionalProperties: false }),
    Type.Object({ ticket: Ticket, recoveryCode: Type.String({ maxLength: 40 }) }, { additionalProperties: false }),
    Type.Object({ ticket: Ticket, passkey: AuthenticationResponse }, { additionalProperties: false }),
  ],
  {
    description:
      'The ticket, with a code of the authenticator app, a recovery code, or a passkey (options: POST /auth/passkey/options with the ticket).',
  },
);
export type SecondStepBody = Static<typeof SecondStepBody>;

export const SecondFactorStep = Type.Object(
  {
    secondFactor: Type.Object({
      ticket: Type.String({ description: 'Send it to POST /auth/sign-in/second-factor: once, within five minutes.' }),
      methods: Type.Array(literals(SECOND_STEP_METHODS), { description: 'The second steps this person can take.' }),
      expiresAt: DateTime,
    }),
  },
  { description: 'The password was right and a second factor is due: no session yet.' },
);
