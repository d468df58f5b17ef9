// The exit codes of the `shortener` command, in one table that scripts can trust: main.ts prints it
// in --help, docs/cli.md shows it (test/cli/cli.test.ts holds the two equal), and exitCodeOf maps
// every error to its row. An API error is classed by its HTTP status; status 0 is no answer at all.

import { ShortenerError } from '../client/client.ts';

export const EXIT = {
  success: 0,
  error: 1,
  usage: 2,
  denied: 3,
  notFound: 4,
  invalid: 5,
  unavailable: 6,
  partial: 7,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

interface ExitCodeRow {
  readonly code: ExitCode;
  readonly meaning: string;
  /** The API's HTTP statuses that end in this code (0: the service could not be reached). */
  readonly statuses: readonly number[];
}

export const EXIT_CODES: readonly ExitCodeRow[] = [
  { code: EXIT.success, meaning: 'success', statuses: [] },
  { code: EXIT.error, meaning: 'an API error not listed below, or a confirmation answered no', statuses: [] },
  {
    code: EXIT.usage,
    meaning: 'usage: a bad flag or argument, no base URL, a file or profile that cannot be read or written',
    statuses: [],
  },
  { code: EXIT.denied, meaning: 'not signed in or not allowed: no API key, 401, 403', statuses: [401, 403] },
  { code: EXIT.notFound, meaning: 'not found or gone: 404, 410', statuses: [404, 410] },
  { code: EXIT.invalid, meaning: 'conflict or invalid input: 400, 409, 413, 422', statuses: [400, 409, 413, 422] },
  {
    code: EXIT.unavailable,
    meaning: 'rate limited or unavailable: 429, 502, 503, 504, or the service cannot be reached (NETWORK_ERROR)',
    statuses: [429, 502, 503, 504, 0],
  },
  { code: EXIT.partial, meaning: 'partial failure: an import in which some rows failed', statuses: [] },
];

/** An error of the command itself (not the API's): a stable code, and the exit code it ends in. */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly code: string;
  readonly exitCode: ExitCode;

  constructor(code: string, message: string, exitCode: ExitCode) {
    super(message);
    this.code = code;
    this.exitCode = exitCode;
  }
}

/** The exit code an error ends the command with. */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof ShortenerError) {
    return EXIT_CODES.find((row) => row.statuses.includes(error.status))?.code ?? EXIT.error;
  }
  return EXIT.error;
}

/** The table as --help prints it. */
export function exitCodesHelp(): string {
  return EXIT_CODES.map((row) => `  ${row.code}  ${row.meaning}`).join('\n');
}
