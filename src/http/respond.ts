// Answers written straight to the socket by the redirect route: each head and body is built once.

import type { ServerResponse } from 'node:http';
import type { CacheEntry } from '../cache/link-cache.ts';
import { ERRORS, errorBody, errorHeaders, type ErrorCode } from '../errors.ts';

interface Prebuilt {
  readonly status: number;
  readonly head: readonly string[];
  readonly body: string;
}

function prebuilt(code: ErrorCode): Prebuilt {
  const body = errorBody(code);
  const head = Object.entries(errorHeaders(code)).flat();
  head.push('content-length', String(Buffer.byteLength(body)));
  return { status: ERRORS[code].status, head, body };
}

const ANSWERS = {
  LINK_NOT_FOUND: prebuilt('LINK_NOT_FOUND'),
  LINK_EXPIRED: prebuilt('LINK_EXPIRED'),
  LINK_DISABLED: prebuilt('LINK_DISABLED'),
  DATABASE_UNAVAILABLE: prebuilt('DATABASE_UNAVAILABLE'),
  DATABASE_TIMEOUT: prebuilt('DATABASE_TIMEOUT'),
  INTERNAL: prebuilt('INTERNAL'),
} as const satisfies Partial<Record<ErrorCode, Prebuilt>>;

export type PrebuiltCode = keyof typeof ANSWERS;

export function writeEntry(res: ServerResponse, entry: CacheEntry): void {
  if (entry.kind === 'redirect') {
    // The head is exactly location, cache-control and content-length (Date is left out on purpose).
    res.sendDate = false;
    res.writeHead(302, entry.head as string[]);
    res.end();
  } else {
    writeAnswer(res, entry.kind === 'absent' ? 'LINK_NOT_FOUND' : entry.reason);
  }
}

export function writeAnswer(res: ServerResponse, code: PrebuiltCode): void {
  const answer = ANSWERS[code];
  res.writeHead(answer.status, answer.head as string[]);
  res.end(answer.body);
}

export function isPrebuilt(code: string): code is PrebuiltCode {
  return Object.hasOwn(ANSWERS, code);
}
