// One opossum breaker for Postgres, fired once per batch (a read batch or a write batch), never
// per request; "not found" is a result, not a failure. It opens when more than half of at least 3
// batches in the rolling 10 s failed, or after FAILURES_IN_A_ROW_TO_OPEN failures in a row; open,
// it fails at once for BREAKER_RESET_MS, then lets one batch through to decide. A failure, or no
// answer within BREAKER_TIMEOUT_MS (above the pool's own bounds: db/pool.ts), becomes a 503
// AppError with a stable code; callers never hang. Only the database's own trouble counts against
// it: a value Postgres refuses (SQLSTATE classes 22 and 23) is the client's error, answered 400
// (409 CONFLICT for 23505 and 23P01), and proves that Postgres answers.

import CircuitBreaker from 'opossum';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { AppError } from '../errors.ts';

export interface DbBreaker {
  /** Runs one batch operation through the breaker; rejects with a 503 AppError on any failure. */
  run<T>(operation: () => Promise<T>): Promise<T>;
  readonly state: 'closed' | 'open' | 'half-open';
  /** Failures counted against the breaker since it was made (client errors are not). */
  readonly failures: number;
  shutdown(): void;
}

type Operation = () => Promise<unknown>;

/**
 * Batches failed in a row that open the breaker whatever its rolling window says: the 50 % rule
 * alone counts 10 s of successes, so a busy Postgres that turns slow would fail one statement
 * timeout at a time for seconds before it opened.
 */
const FAILURES_IN_A_ROW_TO_OPEN = 5;

export function createDbBreaker(
  options: Pick<Config, 'breakerTimeoutMs' | 'breakerResetMs'>,
  log: Logger,
  /** Told of each change of state (metrics). */
  transitioned: (to: DbBreaker['state']) => void = () => {},
  /** What it guards, for its log lines. */
  name = 'Postgres breaker',
): DbBreaker {
  const breaker = new CircuitBreaker((operation: Operation) => operation(), {
    timeout: options.breakerTimeoutMs,
    resetTimeout: options.breakerResetMs,
    errorThresholdPercentage: 50,
    // A few failed batches, not one, before failing fast: one dropped connection is not an outage.
    volumeThreshold: 3,
    rollingCountTimeout: 10_000,
    rollingCountBuckets: 10,
    // Filtered errors are still rejected to the caller; opossum counts them as successes.
    errorFilter: isClientError,
  });
  let lastError = '';
  let failuresInARow = 0;
  let failures = 0;
  breaker.on('success', () => {
    failuresInARow = 0;
  });
  breaker.on('failure', (err: Error) => {
    lastError = err.message;
    failures++;
    failuresInARow++;
    if (failuresInARow >= FAILURES_IN_A_ROW_TO_OPEN && breaker.closed) breaker.open();
  });
  breaker.on('open', () => {
    failuresInARow = 0;
    transitioned('open');
    log.warn({ lastError }, `${name} open: failing fast`);
  });
  breaker.on('halfOpen', () => {
    transitioned('half-open');
    log.info(`${name} half-open: trying one batch`);
  });
  breaker.on('close', () => {
    transitioned('closed');
    log.info(`${name} closed: Postgres answers again`);
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
    get failures() {
      return failures;
    },
    shutdown: () => breaker.shutdown(),
  };
}

/** SQLSTATE classes of the data a statement was given: 22 (data exception), 23 (integrity constraint violation). */
const CLIENT_CLASSES = new Set(['22', '23']);
/** Of those, the ones that mean "it exists already": the client's conflict. */
const CONFLICTS = new Set(['23505', '23P01']);

/** An error of the request, not of the database: a coded client error, or a value Postgres refused. */
function isClientError(err: unknown): boolean {
  if (err instanceof AppError) return err.statusCode < 500;
  const sqlState = sqlStateOf(err);
  return sqlState !== undefined && CLIENT_CLASSES.has(sqlState.slice(0, 2));
}

function sqlStateOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isClientError(err)) {
    const conflict = CONFLICTS.has(sqlStateOf(err) ?? '');
    const message = conflict
      ? 'The request conflicts with data that exists already.'
      : 'A value of the request is outside what the database accepts.';
    return new AppError(conflict ? 'CONFLICT' : 'BAD_REQUEST', message, { cause: err });
  }
  const code = (err as { code?: unknown }).code;
  // ETIMEDOUT: opossum gave up; 57014: the server cancelled the statement (statement_timeout).
  const timedOut = code === 'ETIMEDOUT' || code === '57014' || /timeout/i.test((err as Error).message);
  return new AppError(timedOut ? 'DATABASE_TIMEOUT' : 'DATABASE_UNAVAILABLE', undefined, { cause: err });
}
