// The fast path's parser (fast-path.ts): it reads one request head off a socket's bytes and
// recognises only what it can prove it understands exactly, a redirect request that node:http
// would answer from the redirect handler, never guessing where llhttp could read the bytes
// differently. Everything else is HANDOFF: node:http parses the connection from that request on.
// What is taken: docs/architecture.md#three-entrances.

/** A request the fast path answers: what the redirect path and its observers read of it. */
export interface RequestHead {
  /** HEAD: the answer has no body. */
  readonly head: boolean;
  /** The first path segment, without the slash and the query, of a code's characters: the redirect handler decides whether it may be one. */
  readonly path: string;
  readonly host: string | undefined;
  readonly userAgent: string | undefined;
  readonly referer: string | undefined;
  readonly forwardedFor: string | undefined;
  readonly forwardedHost: string | undefined;
  readonly acceptLanguage: string | undefined;
  /** Read by a password-protected link only (its pass, core/link-passwords.ts). */
  readonly cookie: string | undefined;
  /** The query is exactly QR_QUERY: the click came from the link's QR code. */
  readonly qr: boolean;
  /** The bytes read, where in them the head starts, and where its query lies (after its "?"); queryStart 0: none. Read as text only by a link's rules and acceptOf. */
  readonly source: Buffer;
  readonly start: number;
  readonly queryStart: number;
  readonly queryEnd: number;
  /** Bytes of the head, its final CR LF included: the next request starts after them. */
  readonly length: number;
}

/** The query of the short URL a link's QR code encodes (links/qr-routes.ts): its clicks are counted as scans. */
export const QR_QUERY = 'qr=1';

/** The head is not all here yet. */
export const INCOMPLETE = 0;
/** The request is not one the fast path takes: node:http parses it, from its first byte. */
export const HANDOFF = 1;
export type ParseResult = RequestHead | typeof INCOMPLETE | typeof HANDOFF;

/**
 * Most bytes of a head the fast path reads (request line and fields). Below Node's
 * --max-http-header-size (16 KiB), so that a head it gives up on is still node:http's to judge.
 */
export const MAX_HEAD_BYTES = 8192;
/** Most header fields; Node keeps only the first 2000 (maxHeadersCount), and a Host past them would be read differently. */
const MAX_FIELDS = 100;

const CR = 0x0d;
const LF = 0x0a;
const SP = 0x20;
const HTAB = 0x09;
const COLON = 0x3a;
const SLASH = 0x2f;
const QUESTION = 0x3f;

/** RFC 9110 5.6.2 tchar. */
const TOKEN = byteTable("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
/** Bytes of a code (see core/codes.ts). */
const CODE = byteTable('-_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz');
/** RFC 3986 query: pchar, "/" and "?"; "%" without checking its two digits, as llhttp does not either. */
const QUERY = byteTable("-._~!$&'()*+,;=:@/?%0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
/** RFC 3986 host: reg-name, an IP literal, a port (the same rule node:http's listener applies, server.ts). */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[\w.~!$&'()*+,;=%-]*)(?::\d*)?$/;

function byteTable(chars: string): Uint8Array {
  const table = new Uint8Array(256);
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  return table;
}

/** Whether byte `b` may appear in a field value (RFC 9110 5.5: VCHAR, SP, HTAB; obs-text is handed off). */
function isValueByte(b: number): boolean {
  return (b >= 0x21 && b <= 0x7e) || b === SP || b === HTAB;
}

/** The request head in `buf` from `start`, INCOMPLETE, or HANDOFF. */
// The one long function on purpose: a byte parser read top to bottom as the bytes come, with no call per byte.
// oxlint-disable-next-line max-lines-per-function
export function parseHead(buf: Buffer, start: number): ParseResult {
  const end = buf.length;
  // Request line: method SP.
  let i = start;
  let head: boolean;
  if (end - i < 4) return prefixOf(buf, i, end, 'GET ') || prefixOf(buf, i, end, 'HEAD ') ? INCOMPLETE : HANDOFF;
  if (buf[i] === 0x47 && buf[i + 1] === 0x45 && buf[i + 2] === 0x54 && buf[i + 3] === SP) {
    head = false;
    i += 4;
  } else if (buf[i] === 0x48 && buf[i + 1] === 0x45 && buf[i + 2] === 0x41 && buf[i + 3] === 0x44) {
    if (end - i < 5) return INCOMPLETE;
    if (buf[i + 4] !== SP) return HANDOFF;
    head = true;
    i += 5;
  } else {
    return HANDOFF;
  }
  // Target: "/" code ["?" query] SP.
  if (i >= end) return INCOMPLETE;
  if (buf[i] !== SLASH) return HANDOFF;
  const pathStart = ++i;
  while (i < end && CODE[buf[i] as number] === 1) i++;
  const pathEnd = i;
  if (i >= end) return tooLong(start, end);
  let queryStart = 0;
  if (buf[i] === QUESTION) {
    queryStart = i + 1;
    while (i < end && QUERY[buf[i] as number] === 1) i++;
    if (i >= end) return tooLong(start, end);
  }
  const queryEnd = i;
  const qr = i - pathEnd === QR_QUERY.length + 1 && prefixOf(buf, pathEnd + 1, i, QR_QUERY);
  if (buf[i] !== SP || pathEnd === pathStart) return HANDOFF;
  i++;
  // Version: "HTTP/1.1" or "HTTP/1.0", then CR LF.
  if (end - i < 10) return prefixOf(buf, i, end, 'HTTP/1.1\r\n') || prefixOf(buf, i, end, 'HTTP/1.0\r\n') ? INCOMPLETE : HANDOFF;
  if (!prefixOf(buf, i, i + 7, 'HTTP/1.') || buf[i + 8] !== CR || buf[i + 9] !== LF) return HANDOFF;
  const minor = buf[i + 7];
  if (minor !== 0x31 && minor !== 0x30) return HANDOFF;
  const http11 = minor === 0x31;
  i += 10;

  let host: string | undefined;
  let hosts = 0;
  let userAgent: string | undefined;
  let referer: string | undefined;
  let forwardedFor: string | undefined;
  let forwardedHost: string | undefined;
  let acceptLanguage: string | undefined;
  let cookie: string | undefined;
  let connection: string | undefined;
  let contentLength = false;
  for (let fields = 0; ; fields++) {
    if (i >= end) return tooLong(start, end);
    if (buf[i] === CR) {
      if (i + 1 >= end) return tooLong(start, end);
      if (buf[i + 1] !== LF) return HANDOFF;
      i += 2;
      break;
    }
    if (fields === MAX_FIELDS) return HANDOFF;
    // field-name ":" OWS field-value OWS CR LF; a name that starts with SP or HTAB is obs-fold.
    const nameStart = i;
    while (i < end && TOKEN[buf[i] as number] === 1) i++;
    if (i >= end) return tooLong(start, end);
    if (buf[i] !== COLON || i === nameStart) return HANDOFF;
    const nameEnd = i++;
    while (i < end && (buf[i] === SP || buf[i] === HTAB)) i++;
    const valueStart = i;
    let valueEnd = i;
    while (i < end && isValueByte(buf[i] as number)) {
      if (buf[i] !== SP && buf[i] !== HTAB) valueEnd = i + 1;
      i++;
    }
    if (i + 1 >= end) return tooLong(start, end);
    // Trailing spaces: whether a reader keeps them is one more thing to agree on; no client sends them.
    if (buf[i] !== CR || buf[i + 1] !== LF || valueEnd !== i) return HANDOFF;
    i += 2;
    switch (fieldOf(buf, nameStart, nameEnd)) {
      case Field.Other:
        break;
      case Field.Host:
        if (++hosts > 1) return HANDOFF;
        host = text(buf, valueStart, valueEnd);
        if (!HOST.test(host)) return HANDOFF;
        break;
      case Field.UserAgent:
        if (userAgent !== undefined) return HANDOFF;
        userAgent = text(buf, valueStart, valueEnd);
        break;
      case Field.Referer:
        if (referer !== undefined) return HANDOFF;
        referer = text(buf, valueStart, valueEnd);
        break;
      case Field.ForwardedFor:
        if (forwardedFor !== undefined) return HANDOFF;
        forwardedFor = text(buf, valueStart, valueEnd);
        break;
      case Field.ForwardedHost:
        if (forwardedHost !== undefined) return HANDOFF;
        forwardedHost = text(buf, valueStart, valueEnd);
        break;
      case Field.AcceptLanguage:
        if (acceptLanguage !== undefined) return HANDOFF;
        acceptLanguage = text(buf, valueStart, valueEnd);
        break;
      case Field.Cookie:
        // node:http joins two with "; ": one is all the fast path reads.
        if (cookie !== undefined) return HANDOFF;
        cookie = text(buf, valueStart, valueEnd);
        break;
      case Field.Connection:
        if (connection !== undefined) return HANDOFF;
        connection = text(buf, valueStart, valueEnd).toLowerCase();
        break;
      case Field.ContentLength:
        if (contentLength || valueEnd - valueStart !== 1 || buf[valueStart] !== 0x30) return HANDOFF;
        contentLength = true;
        break;
      case Field.Refused:
        return HANDOFF;
    }
  }
  if (i - start > MAX_HEAD_BYTES) return HANDOFF;
  if (http11 ? hosts !== 1 || connection === 'close' : connection !== 'keep-alive') return HANDOFF;
  if (connection !== undefined && connection !== 'keep-alive' && connection !== 'close') return HANDOFF;
  const path = buf.toString('latin1', pathStart, pathEnd);
  return {
    head,
    path,
    host,
    userAgent,
    referer,
    forwardedFor,
    forwardedHost,
    acceptLanguage,
    cookie,
    qr,
    source: buf,
    start,
    queryStart,
    queryEnd,
    length: i - start,
  };
}

/**
 * The request's Accept, read again from its bytes: only a dead link's answer asks (redirect-handler.ts),
 * so that the parse of a live redirect never looks for it. Repeated fields are joined with ", ", as
 * node:http joins them. The head was checked by parseHead: CR LF ends each line, and no value has a CR.
 */
export function acceptOf(request: RequestHead): string | undefined {
  const buf = request.source;
  // The blank line's CR LF ends the head.
  const end = request.start + request.length - 2;
  let value: string | undefined;
  for (let i = buf.indexOf(LF, request.start) + 1; i < end;) {
    const lineEnd = buf.indexOf(CR, i);
    if (lineEnd - i >= ACCEPT.length && isAcceptName(buf, i)) {
      let at = i + ACCEPT.length;
      while (buf[at] === SP || buf[at] === HTAB) at++;
      const field = text(buf, at, lineEnd);
      value = value === undefined ? field : `${value}, ${field}`;
    }
    i = lineEnd + 2;
  }
  return value;
}

const ACCEPT = 'accept:';

/** Whether a field named Accept, in any case, starts at `at` (letters | 0x20 are lowercase; no other token byte becomes one). */
function isAcceptName(buf: Buffer, at: number): boolean {
  for (let k = 0; k < ACCEPT.length - 1; k++) if (((buf[at + k] as number) | 0x20) !== ACCEPT.charCodeAt(k)) return false;
  return buf[at + ACCEPT.length - 1] === COLON;
}

/** Whether the bytes from `from` to `to` begin `expected` (all of them, or as many as there are). */
function prefixOf(buf: Buffer, from: number, to: number, expected: string): boolean {
  for (let k = 0; from + k < to && k < expected.length; k++) if (buf[from + k] !== expected.charCodeAt(k)) return false;
  return true;
}

/** Out of bytes: wait for more, unless the head is already longer than the fast path reads. */
function tooLong(start: number, end: number): ParseResult {
  return end - start > MAX_HEAD_BYTES ? HANDOFF : INCOMPLETE;
}

/** What the fast path does with a field, by name. */
const Field = {
  Other: 0,
  Host: 1,
  UserAgent: 2,
  Referer: 3,
  ForwardedFor: 4,
  AcceptLanguage: 5,
  Connection: 6,
  ContentLength: 7,
  /** Transfer-Encoding, Expect, Upgrade: node:http's to answer. */
  Refused: 8,
  ForwardedHost: 9,
  Cookie: 10,
} as const;
type Field = (typeof Field)[keyof typeof Field];

const FIELDS: ReadonlyMap<string, Field> = new Map([
  ['host', Field.Host],
  ['user-agent', Field.UserAgent],
  ['referer', Field.Referer],
  ['x-forwarded-for', Field.ForwardedFor],
  ['x-forwarded-host', Field.ForwardedHost],
  ['accept-language', Field.AcceptLanguage],
  ['cookie', Field.Cookie],
  ['connection', Field.Connection],
  ['content-length', Field.ContentLength],
  ['transfer-encoding', Field.Refused],
  ['expect', Field.Refused],
  ['upgrade', Field.Refused],
]);
/** Lengths of the names in FIELDS: any other name is Other without a string being made. */
const FIELD_LENGTHS = new Set([...FIELDS.keys()].map((name) => name.length));

function text(buf: Buffer, start: number, end: number): string {
  return buf.toString('latin1', start, end);
}

function fieldOf(buf: Buffer, start: number, end: number): Field {
  if (!FIELD_LENGTHS.has(end - start)) return Field.Other;
  return FIELDS.get(text(buf, start, end).toLowerCase()) ?? Field.Other;
}
