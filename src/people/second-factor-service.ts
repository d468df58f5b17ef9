// A person's second factors as one service the routes call: what they have, passkeys added, renamed
// and removed, recovery codes made, and the sign-ins that use them: the second step after a password
// (a ticket, then a code, a recovery code or a passkey) and a sign-in with a passkey alone. Changes
// are audited in their transaction (second-factor-changes.ts); sign-ins as PeopleService's are
// (person.sign-in with how, person.sign-in-failed). docs/second-factors.md.

import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Logger } from 'pino';
import { recordAudit } from '../audit/audit.ts';
import type { SignInMethod } from '../auth/sessions.ts';
import type { Config } from '../config/config.ts';
import { passkeysAvailable } from '../config/webauthn-settings.ts';
import { deriveKey } from '../core/keys.ts';
import { AppError } from '../errors.ts';
import { personPasskeys, removePasskey, renamePasskey, savePasskey, type Passkey } from './passkey-store.ts';
import { Passkeys } from './passkeys.ts';
import { findPerson, type PersonWithPassword } from './people-store.ts';
import { recoveryCodeHash } from './recovery-codes.ts';
import { takeRecoveryCode } from './recovery-store.ts';
import { SecondFactorAttempts } from './second-factor-attempts.ts';
import { factorAdded, factorRemoved, replaceCodes, type Acting } from './second-factor-changes.ts';
import { factorsOf, hasFactor, secondFactorRequired, takeTicket, ticketHolder, type Ticket } from './second-factor-store.ts';
import { SignInLimited, type PeopleService, type SignedIn } from './service.ts';
import { TotpService } from './totp-service.ts';
import { totpRow } from './totp-store.ts';

export interface SecondFactorDeps {
  readonly people: PeopleService;
  readonly passkeys: Passkeys;
  readonly totp: TotpService;
  readonly attempts: SecondFactorAttempts;
}

/** The proof of a second step: a code of the app, a recovery code, or a passkey's assertion. */
export type SecondProof = { code: string } | { recoveryCode: string } | { passkey: AuthenticationResponseJSON };

export interface FactorSummary {
  readonly passkeysAvailable: boolean;
  readonly passkeys: Passkey[];
  readonly totp: { readonly enabled: boolean; readonly pending: boolean };
  readonly recoveryCodes: { readonly remaining: number };
  readonly required: boolean;
}

export class SecondFactorService {
  readonly #deps: SecondFactorDeps;

  constructor(deps: SecondFactorDeps) {
    this.#deps = deps;
  }

  get passkeys(): Passkeys {
    return this.#deps.passkeys;
  }

  get totp(): TotpService {
    return this.#deps.totp;
  }

  summary(personId: number): Promise<FactorSummary> {
    return this.#deps.people.read(async (db) => {
      const [factors, passkeys, totp, required] = await Promise.all([
        factorsOf(db, personId),
        personPasskeys(db, personId),
        totpRow(db, personId),
        secondFactorRequired(db, personId),
      ]);
      return {
        passkeysAvailable: this.#deps.passkeys.available,
        passkeys,
        totp: { enabled: factors.totp, pending: (totp?.pendingSecret ?? null) !== null },
        recoveryCodes: { remaining: factors.recoveryCodes },
        required,
      };
    });
  }

  /** Ten new recovery codes, replacing the old; 409 SECOND_FACTOR_NONE without a passkey or an app. */
  recoveryCodes(acting: Acting): Promise<string[]> {
    return this.#deps.people.tx(async (db) => {
      if (!hasFactor(await factorsOf(db, acting.person.id))) throw new AppError('SECOND_FACTOR_NONE');
      return replaceCodes(db, acting);
    });
  }

  /** Registers a passkey (the answer to Passkeys.registrationOptions) under `name`; recovery codes if the person had none. */
  async addPasskey(acting: Acting, name: string, response: RegistrationResponseJSON) {
    const verified = await this.#deps.passkeys.register(acting.person, name, response);
    return this.#deps.people.tx(async (db) => {
      const passkey = await savePasskey(db, acting.person.id, verified);
      const recoveryCodes = await factorAdded(db, acting, 'passkey', 'person.passkey-add', { id: passkey.id, name });
      return { passkey, recoveryCodes };
    });
  }

  async renamePasskey(personId: number, id: number, name: string): Promise<Passkey> {
    const renamed = await this.#deps.people.tx((db) => renamePasskey(db, personId, id, name));
    if (renamed === undefined) throw new AppError('PASSKEY_NOT_FOUND');
    return renamed;
  }

  async removePasskey(acting: Acting, id: number): Promise<void> {
    await this.#deps.people.tx(async (db) => {
      const removed = await removePasskey(db, acting.person.id, id);
      if (removed === undefined) throw new AppError('PASSKEY_NOT_FOUND');
      await factorRemoved(db, acting, 'person.passkey-remove', { id, name: removed.name });
    });
  }

  /** The person a live ticket is for; 401 SECOND_FACTOR_TICKET_INVALID. */
  async ticket(ticket: string): Promise<Ticket> {
    const held = await this.#deps.people.read((db) => ticketHolder(db, ticket));
    if (held === undefined) throw new AppError('SECOND_FACTOR_TICKET_INVALID');
    return held;
  }

  /**
   * The second step of a sign-in: the ticket's person, proven by `proof`, is signed in (methods: the
   * first factor and this one) and the ticket is spent. 401 SECOND_FACTOR_INVALID for a wrong proof,
   * 429 SECOND_FACTOR_RATE_LIMITED past the budgets.
   */
  async secondStep(
    ticket: string,
    proof: SecondProof,
    client: string,
    address: string | null,
  ): Promise<SignedIn & { methods: SignInMethod[] }> {
    const held = await this.ticket(ticket);
    const { personId } = held;
    const [method, right] = await this.#judge(personId, proof, client);
    const person = (await this.#deps.people.read((db) => findPerson(db, personId))) as PersonWithPassword;
    if (!right) {
      await this.#failed(person, address, method);
      throw new AppError('SECOND_FACTOR_INVALID');
    }
    if (!(await this.#deps.people.read((db) => takeTicket(db, ticket)))) throw new AppError('SECOND_FACTOR_TICKET_INVALID');
    const methods: SignInMethod[] = [held.firstFactor, method];
    return { ...(await this.#deps.people.proven(person, address, methods)), methods };
  }

  async #judge(personId: number, proof: SecondProof, client: string): Promise<[SignInMethod, boolean]> {
    const { people, totp, passkeys, attempts } = this.#deps;
    if ('code' in proof) return ['totp', await totp.check(client, personId, proof.code)];
    if ('recoveryCode' in proof) {
      const hash = recoveryCodeHash(proof.recoveryCode);
      return [
        'recovery-code',
        await attempts.judged(
          client,
          personId,
          async () => hash !== undefined && (await people.read((db) => takeRecoveryCode(db, personId, hash))),
        ),
      ];
    }
    return [
      'passkey',
      await attempts.judged(client, personId, async () => (await passkeys.verifyAssertion(proof.passkey, personId)) !== undefined),
    ];
  }

  /** A sign-in with a passkey alone; 401 PASSKEY_INVALID, limited per client (429 SIGN_IN_RATE_LIMITED). */
  async passkeySignIn(response: AuthenticationResponseJSON, client: string, address: string | null): Promise<SignedIn> {
    const { people, passkeys } = this.#deps;
    const budget = people.attempts.client;
    const reserved = await budget.take(client);
    if (!reserved.ok) throw new SignInLimited(reserved.retryAfterSeconds);
    const passkey = await passkeys.verifyAssertion(response, null);
    if (passkey === undefined) throw new AppError('PASSKEY_INVALID');
    await budget.giveBack(client);
    const person = (await people.read((db) => findPerson(db, passkey.personId))) as PersonWithPassword;
    return people.proven(person, address, ['passkey']);
  }

  async #failed(person: PersonWithPassword, address: string | null, via: SignInMethod): Promise<void> {
    await this.#deps.people.tx((db) =>
      recordAudit(
        db,
        { personId: person.id, keyId: null, name: person.name, address },
        { workspaceId: person.lastWorkspaceId, action: 'person.sign-in-failed', targetType: 'person', targetId: person.id, after: { via } },
      ),
    );
  }
}

/** The service of a deployment: its relying party and keys from the configuration, the budgets of password sign-ins. */
export function secondFactorsOf(
  config: Pick<Config, 'baseUrl' | 'codeSecret' | 'webauthnRpId' | 'webauthnRpName' | 'webauthnOrigins'>,
  people: PeopleService,
  log: Logger,
): SecondFactorService {
  const attempts = new SecondFactorAttempts(people.attempts);
  const passkeys = new Passkeys(
    people,
    {
      id: config.webauthnRpId,
      name: config.webauthnRpName,
      origins: config.webauthnOrigins,
      available: passkeysAvailable(config.baseUrl),
      userKey: deriveKey(config.codeSecret, 'webauthn-user'),
    },
    log,
  );
  const totp = new TotpService({ people, attempts, key: deriveKey(config.codeSecret, 'totp'), issuer: config.webauthnRpName, log });
  return new SecondFactorService({ people, passkeys, totp, attempts });
}
