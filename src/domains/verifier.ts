// Domain verification at work: a new domain's token, a check asked for now (POST
// /domains/:host/verify), and the periodic re-check. Every DOMAIN_CHECK_INTERVAL_SECONDS each
// domain is looked up again by one instance (VerificationStore claims rows); what an outcome does
// is core/domain-verification.ts's. A domain whose status changes is served or refused by every
// instance within the host table's refresh (2 s).

import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { afterCheck, type CheckOutcome } from '../core/domain-verification.ts';
import type { DomainRecord } from '../core/domains.ts';
import type { Actor } from '../audit/audit.ts';
import { AppError } from '../errors.ts';
import type { RecordChecker } from './dns-records.ts';
import type { NewVerification } from './store.ts';
import type { VerificationStore } from './verification-store.ts';

export interface VerifierOptions {
  /** DOMAIN_VERIFICATION: false, every domain is served as soon as it is added, and nothing is checked. */
  readonly enabled: boolean;
  readonly intervalMs: number;
  readonly grace: number;
  readonly pendingTtlMs: number;
  readonly store: VerificationStore;
  readonly check: RecordChecker;
  /** Called when a domain's status changed: the host table reads the domains again. */
  readonly changed: () => Promise<void>;
  readonly log: Logger;
}

export type CheckedNow = { readonly outcome: CheckOutcome; readonly seen: string; readonly domain: DomainRecord };

/** Bytes of a token: 24 characters of base64url. */
const TOKEN_BYTES = 18;
/** The periodic round's period at most: a round claims only the domains due. */
const ROUND_MAX_MS = 60_000;

export class DomainVerifier {
  readonly #options: VerifierOptions;
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;
  #stopped = false;

  constructor(options: VerifierOptions) {
    this.#options = options;
  }

  newDomain(): NewVerification {
    const { enabled, pendingTtlMs } = this.#options;
    return { token: randomBytes(TOKEN_BYTES).toString('base64url'), verified: !enabled, pendingTtlMs };
  }

  /** Checks the workspace's domain `host` now (404 DOMAIN_NOT_FOUND if it has none), as `actor` asked (audited). */
  async checkNow(workspaceId: number, host: string, actor: Actor): Promise<CheckedNow> {
    const domain = await this.#options.store.find(workspaceId, host);
    if (domain === undefined) throw new AppError('DOMAIN_NOT_FOUND');
    if (!this.#options.enabled) {
      const verified = { status: 'verified', failures: 0, verifiedAt: new Date() } as const;
      return {
        outcome: 'found',
        seen: 'verification off',
        domain: (await this.#options.store.record(domain.id, verified, false, actor)) ?? domain,
      };
    }
    return this.#checkOne(domain, actor);
  }

  /** `asker`: who asked for the check; null: a periodic round's, whose statements do not go through the breaker. */
  async #checkOne(domain: DomainRecord, asker: Actor | null): Promise<CheckedNow> {
    const background = asker === null;
    const { store, check, grace, log } = this.#options;
    const { token } = domain.verification;
    if (domain.host === null || token === null) return { outcome: 'found', seen: 'the default domain', domain };
    const { outcome, seen } = await check(domain.host, token);
    // Stopped meanwhile: the look-up was cancelled, and its outcome is no news to record.
    if (background && this.#stopped) return { outcome, seen, domain };
    const next = afterCheck(domain.verification, outcome, new Date(), { grace });
    const recorded = (await store.record(domain.id, next, background, asker)) ?? domain;
    if (next.status !== domain.verification.status) {
      const level = next.status === 'verified' ? 'info' : 'warn';
      log[level]({ domain: domain.host, from: domain.verification.status, to: next.status, seen }, 'domains: verification changed');
    }
    return { outcome, seen, domain: recorded };
  }

  /** One periodic round: expired claims removed, then every domain due checked. */
  async runOnce(): Promise<void> {
    const { store, intervalMs, pendingTtlMs, changed } = this.#options;
    const expired = await store.expirePending(pendingTtlMs);
    let changes = expired.length;
    for (const domain of await store.claimDue(intervalMs)) {
      if (this.#stopped) break;
      const checked = await this.#checkOne(domain, null);
      if (checked.domain.verification.status !== domain.verification.status) changes++;
    }
    if (changes > 0) await changed();
  }

  /** Runs a round now and then every min(interval, 1 min) until stop(), on this instance. */
  start(): void {
    if (!this.#options.enabled) return;
    const period = Math.min(this.#options.intervalMs, ROUND_MAX_MS);
    const tick = () => {
      this.#round = this.runOnce()
        .catch((err: unknown) => this.#options.log.warn({ err }, 'domains: verification round failed; next round retries'))
        .finally(() => {
          if (!this.#stopped) this.#timer = setTimeout(tick, period).unref();
        });
    };
    tick();
  }

  /**
   * Stops the rounds; resolves once a round under way has ended, its DNS look-ups cancelled: a
   * shutdown never waits for a resolver that does not answer (seconds a domain).
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#options.check.cancel();
    await this.#round;
  }
}
