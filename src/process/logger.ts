import { pino, type Logger } from 'pino';
import type { LogFormat, LogLevel } from '../config/config.ts';

export interface LogOptions {
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
}

/** `bindings` go on every line: in cluster mode they say which process wrote it. */
export function createLogger({ logLevel, logFormat }: LogOptions, bindings: Record<string, unknown> = {}): Logger {
  const base = { service: 'shortener', ...bindings };
  // Node's types say boolean; a stream that is not a terminal has no isTTY at all.
  const terminal = (process.stdout as { isTTY?: boolean }).isTTY === true;
  const pretty = logFormat === 'pretty' || (logFormat === 'auto' && terminal);
  if (!pretty) return pino({ level: logLevel, base });
  // A worker thread formats the lines; pino flushes it when the process exits.
  const transport = pino.transport({
    target: 'pino-pretty',
    options: { colorize: terminal, translateTime: 'SYS:HH:MM:ss.l', ignore: 'hostname,service', singleLine: false },
  });
  return pino({ level: logLevel, base }, transport);
}
