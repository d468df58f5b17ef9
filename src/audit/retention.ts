// Every hour (and at start): the audit entries older than their workspace's audit_retention_days
// dropped (store.ts dropExpiredAudit). Every instance does it; rows another instance is deleting
// are only waited for, then found gone. As analytics/retention.ts keeps the analytics' partitions.

import type { Logger } from 'pino';

const HOUR_MS = 3_600_000;

export class AuditRetention {
  readonly #drop: () => Promise<number>;
  readonly #log: Logger;
  #timer: NodeJS.Timeout | null = null;

  /** `drop`: one round's deletes (AuditStore dropExpired), resolving to how many entries went. */
  constructor(drop: () => Promise<number>, log: Logger) {
    this.#drop = drop;
    this.#log = log;
  }

  /** One round now, then hourly. */
  async start(): Promise<void> {
    await this.run();
    this.#timer = setInterval(() => void this.run(), HOUR_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Never rejects: a failure is logged, and the next hour tries again. */
  async run(): Promise<number> {
    try {
      const dropped = await this.#drop();
      if (dropped > 0) this.#log.info({ dropped }, 'audit entries past their retention dropped');
      return dropped;
    } catch (err) {
      this.#log.warn({ err }, 'audit entries past their retention could not be dropped: trying again within the hour');
      return 0;
    }
  }
}
