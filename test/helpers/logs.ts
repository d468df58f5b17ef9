// The real app with a logger that keeps its lines in memory, for tests that promise what is (not)
// logged.

import { pino, type Level, type Logger } from 'pino';
import { startApp, type Cleanup, type StartOptions, type TestApp } from './app.ts';

export interface LogLine {
  level: number;
  msg?: string;
  [key: string]: unknown;
}

/** pino's number for `error`: a line at this level or above means something went wrong. */
export const ERROR_LEVEL = 50;

/** A logger writing each line, parsed, into `lines`. */
export function memoryLogger(level: Level = 'warn'): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { log, lines };
}

/** As startApp, with every log line from `level` up kept in `lines`. */
export async function startLoggedApp(
  t: Cleanup,
  databaseUrl: string,
  env: Record<string, string> = {},
  level: Level = 'warn',
  options: Omit<StartOptions, 'log'> = {},
): Promise<TestApp & { lines: LogLine[] }> {
  const { log, lines } = memoryLogger(level);
  return { ...(await startApp(t, databaseUrl, env, { ...options, log })), lines };
}
