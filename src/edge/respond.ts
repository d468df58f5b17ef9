// Answers written straight to the socket by the redirect route: each head and body is built once.

import type { ServerResponse } from 'node:http';
import { isRedirect, type NoRedirect, type RedirectTarget } from '../cache/link-cache.ts';
import { ERRORS, errorBody, errorHeaders, type ErrorCode } from '../errors.ts';

export interface Prebuilt {
  readonly status: number;
  readonly head: readonly string[];
  readonly body: string;
}

/** The answer for `code`, with `headers` besides the usual ones (see errorHeaders). */
export function prebuilt(code: ErrorCode, headers: Record<string, string> = {}, message: string = ERRORS[code].message): Prebuilt {
  const body = errorBody(code, message);
  const head = Object.entries({ ...errorHeaders(code), ...headers }).flat();
  head.push('content-length', String(Buffer.byteLength(body)));
  return { status: ERRORS[code].status, head, body };
}

/** A dead link's JSON: a browser gets a page at the same URL instead (core/visitor-page.ts), so no shared cache may keep one for the other. */
export const NEGOTIATED = { vary: 'accept' } as const;

export const ANSWERS = {
  LINK_NOT_FOUND: prebuilt('LINK_NOT_FOUND', NEGOTIATED),
  LINK_EXPIRED: prebuilt('LINK_EXPIRED', NEGOTIATED),
  LINK_DISABLED: prebuilt('LINK_DISABLED', NEGOTIATED),
  LINK_CLICK_LIMIT_REACHED: prebuilt('LINK_CLICK_LIMIT_REACHED', NEGOTIATED),
  LINK_NOT_YET_ACTIVE: prebuilt('LINK_NOT_YET_ACTIVE', NEGOTIATED),
  LINK_BLOCKED: prebuilt('LINK_BLOCKED', NEGOTIATED),
  HOST_NOT_SERVED: prebuilt('HOST_NOT_SERVED'),
  DATABASE_UNAVAILABLE: prebuilt('DATABASE_UNAVAILABLE'),
  DATABASE_TIMEOUT: prebuilt('DATABASE_TIMEOUT'),
  INTERNAL: prebuilt('INTERNAL'),
} as const satisfies Partial<Record<ErrorCode, Prebuilt>>;

export type PrebuiltCode = keyof typeof ANSWERS;

export type WriteEntry = (res: ServerResponse, entry: RedirectTarget | NoRedirect) => void;

/**
 * The writer of cache entries. A redirect's head is exactly location, cache-control and
 * content-length (Date is left out on purpose), built once: only its location slot changes, and
 * writeHead turns the array into header text before it returns, so one array serves every request.
 */
export function createEntryWriter(cacheControl: string): WriteEntry {
  const head = ['location', '', 'cache-control', cacheControl, 'content-length', '0'];
  return (res, entry) => {
    if (isRedirect(entry)) {
      head[1] = entry;
      res.sendDate = false;
      res.writeHead(302, head);
      res.end();
    } else {
      writeAnswer(res, entry.answer);
    }
  };
}

/**
 * REDIRECT_CACHE_CONTROL for an answer that depends on who asks (core/redirect-rules.ts personal):
 * the same, private (a shared cache must not hand one visitor's answer to another).
 */
export function privateCacheControl(cacheControl: string): string {
  if (/(?:^|[\s,])(?:private|no-store)(?:$|[\s,=])/i.test(cacheControl)) return cacheControl;
  const rest = cacheControl
    .split(',')
    .map((directive) => directive.trim())
    .filter((directive) => directive !== '' && !/^(?:public|s-maxage\s*=.*)$/i.test(directive));
  return ['private', ...rest].join(', ');
}

/** The writer of a link's redirect as its rules chose it: the same head, with their status; private if `personal`. */
export function createRedirectWriter(
  cacheControl: string,
): (res: ServerResponse, status: number, location: string, personal: boolean) => void {
  const shared = ['location', '', 'cache-control', cacheControl, 'content-length', '0'];
  const own = ['location', '', 'cache-control', privateCacheControl(cacheControl), 'content-length', '0'];
  return (res, status, location, personal) => {
    const head = personal ? own : shared;
    head[1] = location;
    res.sendDate = false;
    res.writeHead(status, head);
    res.end();
  };
}

export function writeAnswer(res: ServerResponse, code: PrebuiltCode): void {
  writePrebuilt(res, ANSWERS[code]);
}

export function writePrebuilt(res: ServerResponse, answer: Prebuilt): void {
  res.writeHead(answer.status, answer.head as string[]);
  res.end(answer.body);
}

export function isPrebuilt(code: string): code is PrebuiltCode {
  return Object.hasOwn(ANSWERS, code);
}
