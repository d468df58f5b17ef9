// One opossum breaker for Postgres, fired once per batch (a read batch or a write batch), never
// per request. What goes wrong behind it becomes a 503 with a stable code; callers never hang.

import CircuitBreaker from 'opossum';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';

export interface DbBreaker {
  /** Runs one batch operation through the breaker; rejects with a 503 AppError on any failure. */
  run<T>(operation: () => Promise<T>): Promise<T>;
  readonly state: 'closed' | 'open' | 'half-open';
  shutdown(): void;
}

type Operation = () => Promise<unknown>;

/**
 * Batches failed in a row that open the breaker whatever its rolling window says. The 50 % rule
 * alone counts the successes of the last 10 s: when a busy Postgres turns slow or hangs, failures
 * come one statement timeout apart and the breaker stayed closed ~9 s, each miss and create
 * waiting out the timeout meanwhile (test/fault-matrix-postgres.test.ts).
 */
const FAILURES_IN_A_ROW_TO_OPEN = 5;

export function createDbBreaker(
  options: Pick<Config, 'breakerTimeoutMs' | 'breakerResetMs'>,
  log: Logger,
  /** Told of each change of state (metrics). */
  transitioned: (to: DbBreaker['state']) => void = () => {},
): DbBreaker {
  const breaker = new CircuitBreaker((operation: Operation) => operation(), {
    timeout: options.breakerTimeoutMs,
    resetTimeout: options.breakerResetMs,
    errorThresholdPercentage: 50,
    // A few failed batches, not one, before failing fast: one dropped connection is not an outage.
    volumeThreshold: 3,
    rollingCountTimeout: 10_000,
    rollingCountBuckets: 10,
  });
  let lastError = '';
  let failuresInARow = 0;
  breaker.on('success', () => {
    failuresInARow = 0;
  });
  breaker.on('failure', (err: Error) => {
    lastError = err.message;
    failuresInARow++;
    if (failuresInARow >= FAILURES_IN_A_ROW_TO_OPEN && breaker.closed) breaker.open();
  });
  breaker.on('open', () => {
    failuresInARow = 0;
    transitioned('open');
    log.warn({ lastError }, 'Postgres breaker open: failing fast');
  });
  breaker.on('halfOpen', () => {
    transitioned('half-open');
    log.info('Postgres breaker half-open: trying one batch');
  });
  breaker.on('close', () => {
    transitioned('closed');
    log.info('Postgres breaker closed: Postgres answers again');
  });

  return {
    async run<T>(operation: () => Promise<T>): Promise<T> {
      try {
        return (await breaker.fire(operation)) as T;
      } catch (err) {
        throw toAppError(err);
      }
    },
    get state() {
      return breaker.opened ? 'open' : breaker.halfOpen ? 'half-open' : 'closed';
    },
    shutdown: () => breaker.shutdown(),
  };
}

function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const code = (err as { code?: unknown }).code;
  // ETIMEDOUT: opossum gave up; 57014: the server cancelled the statement (statement_timeout).
  const timedOut = code === 'ETIMEDOUT' || code === '57014' || /timeout/i.test((err as Error).message);
  return new AppError(timedOut ? 'DATABASE_TIMEOUT' : 'DATABASE_UNAVAILABLE', undefined, { cause: err });
}
