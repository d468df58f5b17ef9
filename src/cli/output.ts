// What the command writes: results to stdout (a table or a few lines for people, JSON with --json),
// messages, progress and errors to stderr, so that `shortener links list --json | jq` sees only data.
// Errors read `error: <message> (<CODE>)`; a stack trace only with SHORTENER_DEBUG=1.

import { createInterface } from 'node:readline/promises';
import { ShortenerError } from '../client/client.ts';
import { CliError, EXIT } from './exit-codes.ts';

/** A line of the result, on stdout. */
export function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** A result as JSON, on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A message or progress line for the person at the terminal, on stderr. */
export function say(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** 12345 as "12,345". */
export function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** Rows under a header, each column as wide as its widest cell; the last column is never padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** `text` cut to `max` characters with an ellipsis, when stdout is a terminal (a pipe gets it whole). */
export function fit(text: string, max: number): string {
  return process.stdout.isTTY && text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The line an error is reported with. */
export function errorLine(error: unknown): string {
  if (error instanceof ShortenerError || error instanceof CliError) return `error: ${error.message} (${error.code})`;
  const message = error instanceof Error ? error.message : String(error);
  return `error: ${message} (UNEXPECTED)`;
}

/** Reports `error` on stderr; its stack too when SHORTENER_DEBUG=1. */
export function reportError(error: unknown): void {
  say(errorLine(error));
  if (process.env.SHORTENER_DEBUG === '1' && error instanceof Error && error.stack !== undefined) say(error.stack);
}

/**
 * Goes on only once the person agreed: `yes` (the --yes flag), or "y" typed at the terminal. Without
 * a terminal to ask, --yes is required (a usage error), so that a script never deletes by accident.
 */
export async function confirm(question: string, yes: boolean): Promise<void> {
  if (yes) return;
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    throw new CliError('CONFIRMATION_REQUIRED', 'this asks for confirmation and there is no terminal to ask: add --yes', EXIT.usage);
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`${question} [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new CliError('CANCELLED', 'nothing was done', EXIT.error);
  } finally {
    prompt.close();
  }
}
