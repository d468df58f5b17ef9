// What people do, as one service the routes call: set up the first admin, sign in with a password,
// accept an invitation, reset a password, manage members. Each change runs in one transaction on
// the auth pool, through its breaker (a sick database is a fast 503), with its audit entry
// (audit/audit.ts): the entry commits with the change or not at all. Password hashes are bounded
// (core/hash-slots.ts), and wrong passwords are limited per client and per account (AttemptBudget,
// in Redis across instances) before any hash is computed.

import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { AttemptBudget } from '../api/attempt-budget.ts';
import type { HashSlots } from '../core/hash-slots.ts';
import type { Actor } from '../audit/audit.ts';
import { recordAudit } from '../audit/audit.ts';
import type { Principal } from '../auth/roles.ts';
import type { SignInMethod } from '../auth/sessions.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { AppError } from '../errors.ts';
import { makeEmailToken, useEmailToken } from './email-tokens.ts';
import type { Mailer } from './mail.ts';
import { resetPasswordMail, verifyEmailMail } from './mail.ts';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.ts';
import { secondFactorStep, type SecondFactorStep } from './second-factor-store.ts';
import {
  addMembership,
  anyPersonExists,
  createPerson,
  findPerson,
  findPersonByEmail,
  joinableWorkspaces,
  markEmailVerified,
  memberships,
  publicPerson,
  rememberWorkspace,
  setEmail,
  setPassword,
  setupToken,
  workspaceIds,
  type Person,
  type PersonWithPassword,
} from './people-store.ts';

export interface PeopleDeps {
  readonly pool: pg.Pool;
  readonly breaker: DbBreaker;
  readonly mailer: Mailer | null;
  /** The dashboard's address: links in mails point at it. */
  readonly dashboardUrl: string;
  /** Wrong passwords per client address, and per account. */
  readonly clientAttempts: AttemptBudget;
  readonly accountAttempts: AttemptBudget;
  /** How many password hashes run at once (PASSWORD_HASHES_AT_ONCE; guesses wait in a bounded queue). */
  readonly slots: HashSlots;
}

/** A person signed in: the key their session acts through (a workspace's), and who they are. */
export interface SignedIn {
  readonly key: Principal;
  readonly person: Person;
}

/** 429 SIGN_IN_RATE_LIMITED, with the seconds the route puts in Retry-After. */
export class SignInLimited extends AppError {
  readonly retryAfterSeconds: number;

  constructor(seconds: number) {
    super('SIGN_IN_RATE_LIMITED', `Too many failed sign-ins; retry after ${seconds} s.`);
    this.retryAfterSeconds = seconds;
  }
}

/** Whether `email` looks like an address; lower-cased and trimmed, or undefined. */
export function cleanEmail(email: string): string | undefined {
  const clean = email.trim().toLowerCase();
  return clean.length <= 254 && /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u.test(clean) ? clean : undefined;
}

export class PeopleService {
  readonly #deps: PeopleDeps;

  constructor(deps: PeopleDeps) {
    this.#deps = deps;
  }

  get mail(): boolean {
    return this.#deps.mailer !== null;
  }

  get mailer(): Mailer | null {
    return this.#deps.mailer;
  }

  /** The budgets of wrong passwords, shared with wrong second-factor codes (second-factor-attempts.ts). */
  get attempts(): { readonly client: AttemptBudget; readonly account: AttemptBudget } {
    return { client: this.#deps.clientAttempts, account: this.#deps.accountAttempts };
  }

  /** The dashboard's address, ending in a slash: links in mails point at its pages. */
  get dashboardUrl(): string {
    return this.#deps.dashboardUrl;
  }

  /** Runs `work` in one transaction, through the breaker. */
  tx<T>(work: (db: Queryable) => Promise<T>): Promise<T> {
    return this.#deps.breaker.run(() => inTransaction(this.#deps.pool, work));
  }

  /** One statement (or a few that need no transaction), through the breaker. */
  read<T>(work: (db: Queryable) => Promise<T>): Promise<T> {
    return this.#deps.breaker.run(() => work(this.#deps.pool));
  }

  /** The setup token while setup is needed (made at the first start; the same on every instance), else null. */
  setupToken(): Promise<string | null> {
    return this.read((db) => setupToken(db, randomBytes(24).toString('base64url')));
  }

  setupNeeded(): Promise<boolean> {
    return this.read(async (db) => !(await anyPersonExists(db)));
  }

  /** Whether `password` is the one `stored` was made from, in a hash slot (503 PASSWORD_CHECKS_BUSY when they are all taken). */
  checkPassword(stored: string | null, password: string): Promise<boolean> {
    return this.#deps.slots.guess(() => verifyPassword(stored, password));
  }

  /** A new password's hash, after the policy (NIST SP 800-63B: length and a list of common ones). */
  async newPasswordHash(password: string, context: { email: string; name: string }): Promise<string> {
    const problem = passwordProblem(password, context);
    if (problem !== undefined) throw new AppError(problem.code, problem.message, { field: 'password' });
    return this.#deps.slots.newPassword(() => hashPassword(password));
  }

  /**
   * The first admin: a person who is an admin of every workspace (a fresh install has one; an
   * upgraded one keeps its keys, and the first person manages all of it). 409 SETUP_DONE once anyone exists:
   * the check and the insert are under one advisory lock, so two setups at once make one admin.
   */
  async setUp(body: { name: string; email: string; password: string }, address: string | null): Promise<SignedIn> {
    const hash = await this.newPasswordHash(body.password, body);
    return this.tx(async (db) => {
      await db.query(`SELECT pg_advisory_xact_lock(hashtext('shortener:setup'))`);
      if (await anyPersonExists(db)) throw new AppError('SETUP_DONE');
      await db.query('DELETE FROM setup_token');
      const person = await createPerson(db, { name: body.name, email: body.email, passwordHash: hash, emailVerified: false });
      // The first person keeps the deployment: an operator (docs/operators.md).
      await db.query('UPDATE people SET operator = true WHERE id = $1', [person.id]);
      let first: Principal | undefined;
      for (const workspaceId of await workspaceIds(db)) {
        const key = await addMembership(db, person, workspaceId, 'admin');
        first ??= key;
      }
      if (first === undefined) throw new Error('no workspace exists: migrations make the default one');
      await rememberWorkspace(db, person.id, first.workspaceId);
      const actor = { personId: person.id, keyId: first.id, name: person.name, address };
      await recordAudit(db, actor, {
        workspaceId: first.workspaceId,
        action: 'person.setup',
        targetType: 'person',
        targetId: person.id,
        after: publicPerson(person),
      });
      return { key: first, person: publicPerson(person) };
    });
  }

  /**
   * Signs in with email and password. Reserved per client and per account before the hash is
   * checked; a right password gives both back. Every failure is the same 401 SIGN_IN_FAILED, and
   * an unknown address costs the same hash as a known one. A person with a second factor gets the
   * ticket of the second step instead (second-factor-service.ts secondStep).
   */
  async signIn(email: string, password: string, client: string, address: string | null): Promise<SignedIn | SecondFactorStep> {
    const account = cleanEmail(email) ?? email.trim().toLowerCase();
    await this.#reserve(this.#deps.clientAttempts, client);
    await this.#reserve(this.#deps.accountAttempts, account);
    const person = await this.read((db) => findPersonByEmail(db, account));
    const right = await this.checkPassword(person?.passwordHash ?? null, password);
    if (person === undefined || !right) {
      await this.tx((db) =>
        // Seen by the admins of the workspace the person used last; a failure for an unknown address by none.
        recordAudit(
          db,
          { personId: person?.id ?? null, keyId: null, name: person?.name ?? null, address },
          {
            workspaceId: person?.lastWorkspaceId ?? null,
            action: 'person.sign-in-failed',
            targetType: 'person',
            targetId: person?.id ?? null,
          },
        ),
      );
      throw new AppError('SIGN_IN_FAILED');
    }
    await Promise.all([this.#deps.clientAttempts.giveBack(client), this.#deps.accountAttempts.giveBack(account)]);
    const step = await this.read((db) => secondFactorStep(db, person.id, 'password'));
    return step ?? this.proven(person, address, ['password']);
  }

  /** A person who proved who they are by `methods`: the key their session opens with, and the audit entry saying how. */
  async proven(person: Person, address: string | null, methods: readonly SignInMethod[]): Promise<SignedIn> {
    const key = await this.workspaceKey(person.id);
    await this.tx((db) =>
      recordAudit(
        db,
        { personId: person.id, keyId: key.id, name: person.name, address },
        {
          workspaceId: key.workspaceId,
          action: 'person.sign-in',
          targetType: 'person',
          targetId: person.id,
          after: { via: methods },
        },
      ),
    );
    return { key, person: publicPerson(person) };
  }

  async #reserve(budget: AttemptBudget, id: string): Promise<void> {
    const reserved = await budget.take(id);
    if (!reserved.ok) {
      throw new SignInLimited(reserved.retryAfterSeconds);
    }
  }

  /** The key of the workspace a person's session opens on (the one they used last); 403 WORKSPACE_NOT_FOUND with none. */
  async workspaceKey(personId: number, workspaceId?: number): Promise<Principal> {
    const all = await this.read((db) => memberships(db, personId));
    const chosen = workspaceId === undefined ? all[0] : all.find((membership) => membership.workspaceId === workspaceId);
    if (chosen === undefined) {
      throw new AppError(
        'WORKSPACE_NOT_FOUND',
        workspaceId === undefined ? 'You are not a member of any workspace: ask an admin to invite you.' : undefined,
      );
    }
    await this.read((db) => rememberWorkspace(db, personId, chosen.workspaceId));
    return chosen.key;
  }

  /** Mails a reset link if `email` is a person's; says nothing either way (no hint that an address exists). */
  async requestReset(email: string): Promise<void> {
    const mailer = this.#deps.mailer;
    if (mailer === null) throw new AppError('MAIL_NOT_CONFIGURED');
    const person = await this.read((db) => findPersonByEmail(db, email));
    if (person === undefined) return;
    const { url, expiresAt } = await this.resetLink(person.id);
    await mailer.send({ to: person.email, ...resetPasswordMail({ name: person.name, url, expiresAt }) });
  }

  /** A password reset link for a person (mailed, or made by an admin when mail is off). */
  async resetLink(personId: number): Promise<{ url: string; expiresAt: Date }> {
    const person = await this.read((db) => findPerson(db, personId));
    if (person === undefined) throw new AppError('MEMBER_NOT_FOUND');
    const { token, expiresAt } = await this.read((db) => makeEmailToken(db, personId, 'reset-password', person.email));
    return { url: `${this.#deps.dashboardUrl}reset-password?token=${token}`, expiresAt };
  }

  /** Sets a new password with a reset token; every session of the person closes. Returns the hashes of those closed. */
  async reset(token: string, password: string, address: string | null): Promise<Buffer[]> {
    return this.tx(async (db) => {
      const used = await useEmailToken(db, token, 'reset-password');
      if (used === undefined) throw new AppError('EMAIL_TOKEN_INVALID');
      const person = (await findPerson(db, used.personId)) as PersonWithPassword;
      await setPassword(db, person.id, await this.newPasswordHash(password, person));
      // The link reached the address: it is verified.
      await markEmailVerified(db, person.id, used.email);
      await recordAudit(
        db,
        { personId: person.id, keyId: null, name: person.name, address },
        {
          workspaceId: person.lastWorkspaceId,
          action: 'person.password',
          targetType: 'person',
          targetId: person.id,
          after: { by: 'reset link' },
        },
      );
      const { rows } = await db.query<{ hash: Buffer }>('DELETE FROM sessions WHERE person_id = $1 RETURNING hash', [person.id]);
      return rows.map((row) => row.hash);
    });
  }

  /** Mails a verification link for the person's current address. */
  async sendVerification(person: Person): Promise<void> {
    const mailer = this.#deps.mailer;
    if (mailer === null) throw new AppError('MAIL_NOT_CONFIGURED');
    const { token } = await this.read((db) => makeEmailToken(db, person.id, 'verify-email', person.email));
    await mailer.send({
      to: person.email,
      ...verifyEmailMail({ name: person.name, url: `${this.#deps.dashboardUrl}verify-email?token=${token}` }),
    });
  }

  async verifyEmail(token: string): Promise<void> {
    await this.tx(async (db) => {
      const used = await useEmailToken(db, token, 'verify-email');
      if (used === undefined || !(await markEmailVerified(db, used.personId, used.email))) throw new AppError('EMAIL_TOKEN_INVALID');
    });
  }

  /** Changes the password, given the current one; the person's other sessions close (their hashes returned). */
  async changePassword(
    person: Person,
    current: string,
    next: string,
    exceptHash: Buffer,
    actor: Actor,
    workspaceId: number,
  ): Promise<Buffer[]> {
    const stored = await this.read((db) => findPerson(db, person.id));
    if (!(await this.checkPassword(stored?.passwordHash ?? null, current)))
      throw new AppError('CURRENT_PASSWORD_WRONG', undefined, { field: 'currentPassword' });
    const hash = await this.newPasswordHash(next, person);
    return this.tx(async (db) => {
      await setPassword(db, person.id, hash);
      await recordAudit(db, actor, { workspaceId, action: 'person.password', targetType: 'person', targetId: person.id });
      const { rows } = await db.query<{ hash: Buffer }>('DELETE FROM sessions WHERE person_id = $1 AND hash <> $2 RETURNING hash', [
        person.id,
        exceptHash,
      ]);
      return rows.map((row) => row.hash);
    });
  }

  /** Changes the email address, given the password; unverified until its link is followed (mailed when mail is on). */
  async changeEmail(person: Person, email: string, password: string, actor: Actor, workspaceId: number): Promise<Person> {
    const stored = await this.read((db) => findPerson(db, person.id));
    if (!(await this.checkPassword(stored?.passwordHash ?? null, password)))
      throw new AppError('CURRENT_PASSWORD_WRONG', undefined, { field: 'password' });
    await this.tx(async (db) => {
      await setEmail(db, person.id, email);
      await recordAudit(db, actor, {
        workspaceId,
        action: 'person.email',
        targetType: 'person',
        targetId: person.id,
        before: { email: person.email },
        after: { email },
      });
    });
    const changed = { ...person, email, emailVerified: false };
    if (this.mail) await this.sendVerification(changed);
    return changed;
  }

  /**
   * Joins, as a member, the workspace `workspaceId` that lets people of the person's verified email
   * domain join (every such workspace without one); the keys of the memberships made. Audited.
   */
  async joinByDomain(person: Person, address: string | null, workspaceId?: number): Promise<Principal[]> {
    return this.tx(async (db) => {
      const open = await joinableWorkspaces(db, person.id);
      const chosen = workspaceId === undefined ? open : open.filter((workspace) => workspace.id === workspaceId);
      if (workspaceId !== undefined && chosen.length === 0)
        throw new AppError('WORKSPACE_NOT_FOUND', 'This workspace does not take people of your verified email domain.');
      const keys: Principal[] = [];
      for (const workspace of chosen) {
        const key = await addMembership(db, person, workspace.id, 'member');
        await recordAudit(
          db,
          { personId: person.id, keyId: key.id, name: person.name, address },
          {
            workspaceId: workspace.id,
            action: 'member.join',
            targetType: 'person',
            targetId: person.id,
            after: { email: person.email, role: 'member', via: 'email domain' },
          },
        );
        keys.push(key);
      }
      return keys;
    });
  }
}
