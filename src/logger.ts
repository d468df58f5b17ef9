import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.ts';

/** `bindings` go on every line: in cluster mode they say which process wrote it. */
export function createLogger(level: LogLevel, bindings: Record<string, unknown> = {}): Logger {
  return pino({ level, base: { service: 'shortener', ...bindings } });
}
