// Passkeys (WebAuthn, through @simplewebauthn/server): registering one for the signed-in person,
// and checking an assertion, for a sign-in with the passkey alone (a discoverable credential: no
// email asked; the authenticator must have verified the person, by PIN or biometrics) or as the
// second step after a password (the person's own passkeys only). Each ceremony's challenge is a row
// taken by the answer (passkey-store.ts); the signature counter must grow. docs/second-factors.md.

import { createHmac } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Logger } from 'pino';
import { AppError, isAppError } from '../errors.ts';
import {
  CHALLENGE_TTL_MS,
  findPasskey,
  passkeyUsed,
  personPasskeys,
  saveChallenge,
  takeChallenge,
  type CeremonyPurpose,
  type NewPasskey,
  type Passkey,
} from './passkey-store.ts';
import type { Person } from './people-store.ts';
import type { PeopleService } from './service.ts';

/**
 * @simplewebauthn/server, loaded at the first ceremony: about 10 MB of a process's resident memory
 * that a process which never sees a passkey does without (docs/performance.md#start-up).
 */
let simpleWebAuthn: Promise<typeof import('@simplewebauthn/server')> | undefined;
const webAuthn = (): Promise<typeof import('@simplewebauthn/server')> => (simpleWebAuthn ??= import('@simplewebauthn/server'));

export interface RelyingParty {
  readonly id: string;
  readonly name: string;
  readonly origins: readonly string[];
  /** False when browsers would not offer passkeys (BASE_URL neither https nor http on localhost). */
  readonly available: boolean;
  /** Derives the WebAuthn user handle of a person (an HMAC of their id: stable, and no personal data). */
  readonly userKey: Buffer;
}

/**
 * COSE algorithms: EdDSA, ES256, RS256, what authenticators make. Named here because the library's default probes
 * the runtime for ML-DSA-44, which Node 24 marks experimental (a warning on every start).
 */
const ALGORITHMS = [-8, -7, -257];

/** The browser's own timeout; the challenge outlives it a little. */
const CEREMONY_MS = CHALLENGE_TTL_MS - 60_000;

export class Passkeys {
  readonly #people: PeopleService;
  readonly #rp: RelyingParty;
  readonly #log: Logger;

  constructor(people: PeopleService, rp: RelyingParty, log: Logger) {
    this.#people = people;
    this.#rp = rp;
    this.#log = log;
  }

  get available(): boolean {
    return this.#rp.available;
  }

  /** 409 PASSKEYS_UNAVAILABLE where browsers would not offer them. */
  assertAvailable(): void {
    if (!this.#rp.available) throw new AppError('PASSKEYS_UNAVAILABLE');
  }

  userHandle(personId: number): Buffer {
    return createHmac('sha256', this.#rp.userKey).update(String(personId)).digest().subarray(0, 16);
  }

  /** The options of registering a passkey for `person` (none of theirs again), its challenge remembered. */
  async registrationOptions(person: Person): Promise<PublicKeyCredentialCreationOptionsJSON> {
    this.assertAvailable();
    const existing = await this.#people.read((db) => personPasskeys(db, person.id));
    const { generateRegistrationOptions } = await webAuthn();
    const options = await generateRegistrationOptions({
      rpName: this.#rp.name,
      rpID: this.#rp.id,
      userName: person.email,
      userDisplayName: person.name,
      userID: new Uint8Array(this.userHandle(person.id)),
      timeout: CEREMONY_MS,
      attestationType: 'none',
      supportedAlgorithmIDs: ALGORITHMS,
      excludeCredentials: existing.map((passkey) => ({ id: passkey.credentialId.toString('base64url'), transports: passkey.transports })),
      // Discoverable where the authenticator can (a sign-in without an email); verification where it can (a sign-in alone).
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    await this.#people.read((db) => saveChallenge(db, options.challenge, 'register', person.id));
    return options;
  }

  /** The passkey of the browser's answer to registrationOptions, verified (not saved yet); 400 PASSKEY_REGISTRATION_FAILED. */
  async register(person: Person, name: string, response: RegistrationResponseJSON): Promise<NewPasskey> {
    this.assertAvailable();
    const { verifyRegistrationResponse } = await webAuthn();
    const verified = await this.#judged('register', () =>
      verifyRegistrationResponse({
        response,
        expectedChallenge: (challenge) => this.#take(challenge, 'register', person.id),
        expectedOrigin: [...this.#rp.origins],
        expectedRPID: this.#rp.id,
        supportedAlgorithmIDs: ALGORITHMS,
        // 'preferred': a security key without a PIN still makes a second factor (not a sign-in alone).
        requireUserVerification: false,
      }),
    );
    if (verified?.verified !== true) throw new AppError('PASSKEY_REGISTRATION_FAILED');
    const { credential, credentialBackedUp } = verified.registrationInfo;
    return {
      credentialId: Buffer.from(credential.id, 'base64url'),
      publicKey: Buffer.from(credential.publicKey),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name,
      backedUp: credentialBackedUp,
    };
  }

  /**
   * The options of an assertion: for a sign-in with a passkey alone (`personId` null: any
   * discoverable passkey), or for the second step of `personId` (their passkeys listed).
   */
  async assertionOptions(personId: number | null): Promise<PublicKeyCredentialRequestOptionsJSON> {
    this.assertAvailable();
    const theirs = personId === null ? [] : await this.#people.read((db) => personPasskeys(db, personId));
    const { generateAuthenticationOptions } = await webAuthn();
    const options = await generateAuthenticationOptions({
      rpID: this.#rp.id,
      timeout: CEREMONY_MS,
      userVerification: 'preferred',
      allowCredentials: theirs.map((passkey) => ({ id: passkey.credentialId.toString('base64url'), transports: passkey.transports })),
    });
    await this.#people.read((db) => saveChallenge(db, options.challenge, 'sign-in', personId));
    return options;
  }

  /**
   * The passkey an assertion was made with, once it checks out (a challenge of assertionOptions for
   * the same `personId`, origin, relying party, signature, a growing counter; for a sign-in alone,
   * user verification), its counter moved on; undefined otherwise.
   */
  async verifyAssertion(response: AuthenticationResponseJSON, personId: number | null): Promise<Passkey | undefined> {
    this.assertAvailable();
    const credentialId = Buffer.from(response.id, 'base64url');
    const passkey = credentialId.length === 0 ? undefined : await this.#people.read((db) => findPasskey(db, credentialId));
    if (passkey === undefined || (personId !== null && passkey.personId !== personId)) return undefined;
    const handle = response.response.userHandle;
    if (handle !== undefined && !Buffer.from(handle, 'base64url').equals(this.userHandle(passkey.personId))) return undefined;
    const { verifyAuthenticationResponse } = await webAuthn();
    const verified = await this.#judged('sign-in', () =>
      verifyAuthenticationResponse({
        response,
        expectedChallenge: (challenge) => this.#take(challenge, 'sign-in', personId),
        expectedOrigin: [...this.#rp.origins],
        expectedRPID: this.#rp.id,
        credential: {
          id: response.id,
          publicKey: new Uint8Array(passkey.publicKey),
          counter: passkey.counter,
          transports: passkey.transports,
        },
        requireUserVerification: personId === null,
      }),
    );
    if (verified?.verified !== true) return undefined;
    await this.#people.read((db) => passkeyUsed(db, passkey.id, verified.authenticationInfo.newCounter));
    return passkey;
  }

  #take(challenge: string, purpose: CeremonyPurpose, personId: number | null): Promise<boolean> {
    return this.#people.read((db) => takeChallenge(db, challenge, purpose, personId));
  }

  /** The library's verdict; undefined when it refused the answer (why is logged, never the answer). */
  async #judged<T>(ceremony: CeremonyPurpose, verify: () => Promise<T>): Promise<T | undefined> {
    try {
      return await verify();
    } catch (err) {
      if (isAppError(err)) throw err;
      this.#log.info({ ceremony, reason: (err as Error).message }, 'a passkey answer did not check out');
      return undefined;
    }
  }
}
