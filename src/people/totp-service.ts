// A person's authenticator app: setting it up (a secret, its otpauth:// URI and QR code, unconfirmed
// until a code of it comes back), switching it off (with a code or the password), and checking a code
// for the second step of a sign-in. A code is taken once (totp-store.ts takeTotpStep); wrong codes
// are limited per client and per account (second-factor-attempts.ts). docs/second-factors.md.

import type { Logger } from 'pino';
import { AppError } from '../errors.ts';
import { findPerson } from './people-store.ts';
import type { SecondFactorAttempts } from './second-factor-attempts.ts';
import { factorAdded, factorRemoved, type Acting } from './second-factor-changes.ts';
import type { PeopleService } from './service.ts';
import { base32Of, newTotpSecret, openSecret, qrSvg, sealSecret, stepOf, totpUri } from './totp.ts';
import { confirmTotp, removeTotp, startTotp, takeTotpStep, totpRow } from './totp-store.ts';

export interface TotpDeps {
  readonly people: PeopleService;
  readonly attempts: SecondFactorAttempts;
  /** deriveKey(CODE_SECRET, 'totp'): seals the secrets. */
  readonly key: Buffer;
  /** The issuer an app shows beside the account (WEBAUTHN_RP_NAME). */
  readonly issuer: string;
  readonly log: Logger;
}

export class TotpService {
  readonly #deps: TotpDeps;

  constructor(deps: TotpDeps) {
    this.#deps = deps;
  }

  /** A new secret for the person's app, unconfirmed: what to show them (a confirmed app keeps working until this one is confirmed). */
  async start(acting: Acting): Promise<{ secret: string; uri: string; qrSvg: string }> {
    const { people, key, issuer } = this.#deps;
    const secret = newTotpSecret();
    await people.read((db) => startTotp(db, acting.person.id, sealSecret(key, acting.person.id, secret)));
    const uri = totpUri(secret, issuer, acting.person.email);
    return { secret: base32Of(secret), uri, qrSvg: await qrSvg(uri) };
  }

  /** Confirms the set-up with a code of it: the app is the person's factor from now on. Recovery codes if they had none. */
  async confirm(acting: Acting, code: string): Promise<{ recoveryCodes: string[] | null }> {
    const { people, attempts } = this.#deps;
    const personId = acting.person.id;
    const pending = (await people.read((db) => totpRow(db, personId)))?.pendingSecret ?? null;
    if (pending === null) throw new AppError('TOTP_NOT_STARTED');
    let step: number | undefined;
    const right = await attempts.judged(acting.client, personId, async () => {
      step = this.#stepOf(personId, pending, code);
      return step !== undefined;
    });
    if (!right || step === undefined) throw new AppError('TOTP_CODE_WRONG', undefined, { field: 'code' });
    const taken = step;
    return people.tx(async (db) => {
      if (!(await confirmTotp(db, personId, pending, taken))) throw new AppError('TOTP_NOT_STARTED');
      return { recoveryCodes: await factorAdded(db, acting, 'totp', 'person.totp-enable', {}) };
    });
  }

  /** Switches the app off, given one of its codes or the person's password; refused if it is their last factor and one is required. */
  async disable(acting: Acting, proof: { code: string } | { password: string }): Promise<void> {
    const { people, attempts } = this.#deps;
    const personId = acting.person.id;
    const row = await people.read((db) => totpRow(db, personId));
    if ((row?.secret ?? null) === null) throw new AppError('TOTP_NOT_ENABLED');
    if ('code' in proof) {
      if (!(await this.check(acting.client, personId, proof.code))) throw new AppError('TOTP_CODE_WRONG', undefined, { field: 'code' });
    } else {
      const right = await attempts.judged(acting.client, personId, async () => {
        const stored = await people.read((db) => findPerson(db, personId));
        return people.checkPassword(stored?.passwordHash ?? null, proof.password);
      });
      if (!right) throw new AppError('CURRENT_PASSWORD_WRONG', undefined, { field: 'password' });
    }
    await people.tx(async (db) => {
      if (!(await removeTotp(db, personId))) throw new AppError('TOTP_NOT_ENABLED');
      await factorRemoved(db, acting, 'person.totp-disable', {});
    });
  }

  /** Whether `code` is a code of the person's app not taken before, within the budgets; taken if so. */
  async check(client: string, personId: number, code: string): Promise<boolean> {
    const { people, attempts } = this.#deps;
    return attempts.judged(client, personId, async () => {
      const sealed = (await people.read((db) => totpRow(db, personId)))?.secret ?? null;
      const step = sealed === null ? undefined : this.#stepOf(personId, sealed, code);
      return step !== undefined && (await people.read((db) => takeTotpStep(db, personId, step)));
    });
  }

  /** The step of `code` under the sealed secret; a secret that does not open (CODE_SECRET changed) takes no code, and says so in the log. */
  #stepOf(personId: number, sealed: Buffer, code: string): number | undefined {
    let secret: Buffer;
    try {
      secret = openSecret(this.#deps.key, personId, sealed);
    } catch {
      this.#deps.log.error(
        { person: personId },
        'an authenticator app secret does not open: was CODE_SECRET changed? The person sets the app up again',
      );
      return undefined;
    }
    return stepOf(secret, code);
  }
}
