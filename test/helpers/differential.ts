// Differential testing of the fast path: the same bytes, written the same way, to the service with
// FAST_PATH=true and with FAST_PATH=false (node:http all the way, the reference) must get the same
// bytes back, apart from the value of a Date header, and leave the connection in the same state.
//
// The reference is only a reference where its own answer does not depend on timing, and node:http
// has one such case: an error in the bytes it parses (a malformed request, data after a request
// that said Connection: close) makes it write its 400 and close at once, dropping the answers it
// still owed. Whether an answer was still owed depends on when the bytes arrived. So a stream
// written in several pieces waits, before a request that may cause such an error, until every
// answer before it has come back (a barrier), unless all of them are answered before the next read
// (redirects whose codes are in both apps' LRU, see warmCaches: node:http writes such an answer at
// once, or a tick after the answer before it). A stream written at once is read at once, and needs
// no barrier.

import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { RESERVED_WORDS } from '../../src/core/codes.ts';
import { createLink, lruMisses, startApp, type Cleanup } from './app.ts';

// ---------------------------------------------------------------------------------------------
// The links both apps serve

/** Links made by alias before any stream, and their targets. */
export const LIVE_LINKS: Readonly<Record<string, string>> = {
  'abc-1': 'https://example.com/a',
  Abc_2: 'https://example.com/b?x=1&y=two',
  x_y: 'https://example.com/short',
  'go-now': 'https://example.org/',
  'promo-2026': 'https://shop.example/sale?utm_source=sho.rt&utm_medium=link',
  'a-b-c': 'https://example.com/a/b/c',
  'MiXeD-Case': 'https://example.com/MiXeD',
  '123-456': 'http://example.net/numbers',
  ___: 'https://example.com/underscores',
  'a--b': 'https://example.com/dashes',
  'z9-Q': 'https://example.com/z9',
  deep_link: 'https://example.com/deep/path/to/a/page.html',
  'help-page': 'https://help.example.com/#top',
  'big-sale': 'https://example.com:8443/sale',
  'pct-target': 'https://example.com/%E2%9C%93?q=a%20b',
  'idn-target': 'https://xn--bcher-kva.example/',
  snake_case_code: 'https://example.com/snake',
  'long-alias-of-sixty-four-characters-xxxxxxxxxxxxxxxxxxxxxxxxxxxx': 'https://example.com/long',
  'ends-with-dash-': 'https://example.com/dash',
  '-starts-with-dash': 'https://example.com/lead',
};

/**
 * Links with options, made by alias like LIVE_LINKS: their answers depend on the request's
 * User-Agent, Accept-Language, client address (X-Forwarded-For behind a trusted proxy) and query,
 * which the generated requests vary, so both transports must read each the same way.
 */
export const RULED_LINKS: Readonly<Record<string, Record<string, unknown>>> = {
  'rule-device': {
    url: 'https://example.com/web',
    options: {
      redirectStatus: 307,
      targets: [
        { when: { device: ['ios'] }, url: 'https://apps.apple.com/app/id1' },
        { when: { device: ['android', 'mobile'] }, url: 'https://play.google.com/store/apps/details?id=x' },
      ],
    },
  },
  'rule-lang': {
    url: 'https://example.com/en',
    options: {
      redirectStatus: 301,
      targets: [
        { when: { language: ['de'] }, url: 'https://example.com/de' },
        { when: { language: ['en-gb', 'fr'] }, url: 'https://example.com/gb-or-fr' },
      ],
    },
  },
  'rule-query': {
    url: 'https://example.com/q?keep=1',
    options: {
      forwardQuery: true,
      targets: [{ when: { query: { name: 'utm_source', value: 'x' } }, url: 'https://example.com/from-x#frag' }],
    },
  },
  'rule-split': {
    url: 'https://example.com/control',
    options: {
      redirectStatus: 308,
      split: [
        { url: 'https://example.com/a', weight: 30 },
        { url: 'https://example.com/b', weight: 70 },
      ],
    },
  },
  'rule-preview': {
    url: 'https://example.com/previewed?x=1',
    // Not ASCII: the fast path must send the same UTF-8 bytes as node:http.
    options: { preview: { title: 'Café – A "quoted" <title>', description: 'Tom & Jerry 🐭', image: 'https://cdn.example/i.png' } },
  },
  'rule-app': {
    url: 'https://example.com/app-web?x=1',
    options: { forwardQuery: true, deepLink: { ios: 'myapp://open/1?a=b', android: 'myapp://open/2' } },
  },
  'rule-pass': {
    url: 'https://example.com/behind-a-password',
    options: { redirectStatus: 307, password: 'differential' },
  },
  'rule-place': {
    url: 'https://example.com/world',
    options: {
      targets: [
        { when: { country: ['US', 'DE'], until: '2999-01-01T00:00:00Z' }, url: 'https://example.com/us-de' },
        { when: { from: '2999-01-01T00:00:00Z' }, url: 'https://example.com/future' },
      ],
      forwardQuery: true,
    },
  },
};

/** Links written straight into Postgres that answer 410. */
export const GONE_LINKS: Readonly<Record<string, 'expired' | 'disabled'>> = {
  'gone-exp': 'expired',
  old_promo: 'expired',
  'gone-off': 'disabled',
  banned_1: 'disabled',
};

/** Codes of no link, asked for before any stream, so that both apps' LRUs hold their 404. */
export const WARM_UNKNOWN: readonly string[] = ['nope-1', 'missing_2', 'ABC-1', 'abc-1-', 'x_y_', 'never-made', 'Z9-q', 'gone'];

/** Codes whose answer both apps have in their LRU: answered before the next read. */
const WARM = new Set([...Object.keys(LIVE_LINKS), ...Object.keys(RULED_LINKS), ...Object.keys(GONE_LINKS), ...WARM_UNKNOWN]);

// ---------------------------------------------------------------------------------------------
// Requests

/** A request before it is written out: the parts hostile shapes change. */
export interface Head {
  method: string;
  target: string;
  /** null: no version at all (HTTP/0.9). */
  version: string | null;
  /** Header lines, without their line ends. */
  lines: string[];
  body: string;
  eol: string;
}

export interface Request {
  /** The bytes, one character per byte (latin1). */
  readonly text: string;
  readonly method: string;
  /** Answered before the next read, and no reason to close: a redirect from both LRUs. */
  readonly settled: boolean;
  /** Bytes node:http may refuse, or an answer that may end the connection. */
  readonly hostile: boolean;
  /**
   * A head past node:http's header limit. node:http hands a long header section to JavaScript
   * every 32 fields and runs its queues then, so which answers it writes before its 431 depends
   * on how the bytes arrive: such a request always waits for the answers before it.
   */
  readonly overflows?: boolean;
  /** The request itself asks for the connection to end (Connection: close, HTTP/1.0 without keep-alive). */
  readonly closes: boolean;
  /** What it is, for the failure message and the tally: "redirect", "api", or "hostile:<shape>". */
  readonly label: string;
}

export function render(head: Head): string {
  const { eol } = head;
  const line = head.version === null ? `${head.method} ${head.target}` : `${head.method} ${head.target} ${head.version}`;
  return `${line}${eol}${head.lines.map((l) => l + eol).join('')}${eol}${head.body}`;
}

const pick = <T>(...values: T[]) => fc.constantFrom(...values);
const chars = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String.fromCharCode(from + i));
const VCHAR = chars(0x21, 0x7e);
const TCHAR = [..."!#$%&'*+-.^_`|~".split(''), ...chars(0x30, 0x39), ...chars(0x41, 0x5a), ...chars(0x61, 0x7a)];
const CODE_CHARS = [...chars(0x30, 0x39), ...chars(0x41, 0x5a), ...chars(0x61, 0x7a), '-', '_'];
const ALNUM = [...chars(0x30, 0x39), ...chars(0x41, 0x5a), ...chars(0x61, 0x7a)];
// RFC 3986 pchar without "%" (percent-encoding is a shape of its own).
const PCHAR = [...CODE_CHARS, '.', '~', '!', '$', '&', "'", '(', ')', '*', '+', ',', ';', '=', ':', '@'];

const stringOf = (alphabet: readonly string[], minLength: number, maxLength: number) =>
  fc.array(fc.constantFrom(...alphabet), { minLength, maxLength }).map((a) => a.join(''));
const ows = pick('', ' ', '\t', '  ', ' \t ');
/** Any field value (RFC 9112 5: visible characters, spaces and tabs inside), with optional whitespace around. */
const fieldValue = fc.tuple(ows, stringOf([...VCHAR, ' ', '\t'], 0, 40), ows).map(([a, v, b]) => `${a}${v}${b}`);
const header = (name: string, value: fc.Arbitrary<string>) =>
  fc.tuple(fc.mixedCase(fc.constant(name)), ows, value, ows).map(([n, a, v, b]) => `${n}:${a}${v}${b}`);

const extraHeader = fc.oneof(
  header(
    'User-Agent',
    fc.oneof(pick('Mozilla/5.0 (X11; Linux x86_64)', 'curl/8.5.0', 'Googlebot/2.1 (+http://www.google.com/bot.html)'), fieldValue),
  ),
  header('Referer', fc.oneof(pick('https://example.org/page?q=1', 'android-app://com.example/'), fieldValue)),
  header('Accept-Language', fc.oneof(pick('en-US,en;q=0.9', 'de', '*'), fieldValue)),
  header(
    'X-Forwarded-For',
    fc.array(fc.ipV4(), { minLength: 1, maxLength: 3 }).map((ips) => ips.join(', ')),
  ),
  header('Accept', pick('*/*', 'text/html,application/xhtml+xml', 'application/json')),
  header('Cookie', pick('a=b; c=d', 'session=xyz')),
  fc.tuple(stringOf(TCHAR, 1, 12), ows, fieldValue).map(([name, a, v]) => `X-${name}:${a}${v}`),
);
const hostValue = pick(
  'sho.rt',
  'sho.rt:443',
  '127.0.0.1',
  '127.0.0.1:8080',
  'localhost',
  '[::1]',
  '[::1]:80',
  'EXAMPLE.com',
  '',
  'a_b.example',
);
const hostLine = header('Host', hostValue);

/** A code, and whether both LRUs hold its answer. */
const anyCode: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...Object.keys(LIVE_LINKS)) },
  { weight: 3, arbitrary: fc.constantFrom(...Object.keys(RULED_LINKS)) },
  { weight: 2, arbitrary: fc.constantFrom(...Object.keys(GONE_LINKS)) },
  { weight: 2, arbitrary: fc.constantFrom(...WARM_UNKNOWN) },
  // Asked for the first time (in this app, at least): a lookup in Postgres.
  { weight: 1, arbitrary: stringOf(CODE_CHARS, 3, 20).map((s) => `q-${s}`) },
  // The length of generated codes: may be "impossible" (no lookup) or need one.
  { weight: 1, arbitrary: stringOf(ALNUM, 7, 7) },
  // Reserved words (routes, or 404 without a lookup), in any case; not /metrics and /readyz, whose answers change.
  {
    weight: 1,
    arbitrary: fc
      .mixedCase(fc.constantFrom(...[...RESERVED_WORDS].filter((w) => w !== 'metrics' && w !== 'readyz')))
      .filter((w) => w !== 'metrics' && w !== 'readyz'),
  },
  // Shapes no code has: too short, too long, characters outside the alphabet.
  { weight: 1, arbitrary: fc.oneof(stringOf(PCHAR, 0, 12), stringOf(CODE_CHARS, 65, 80), stringOf(CODE_CHARS, 1, 2)) },
);
const query = fc.option(
  stringOf([...PCHAR, '/', '?', '%20'], 0, 30).map((q) => `?${q}`),
  { nil: '', freq: 3 },
);

const shuffled = (lines: string[]) => fc.shuffledSubarray(lines, { minLength: lines.length, maxLength: lines.length });

/**
 * A request of a valid shape, with what its parts say: whether both LRUs hold the answer to its
 * code (see warmCaches) and whether it asks for the connection to close.
 */
export function requestOf(head: Head, label: string): Request {
  const connection = head.lines.map((l) => /^connection:[ \t]*(.*?)[ \t]*$/i.exec(l)?.[1]?.toLowerCase()).find((v) => v !== undefined);
  const closes = head.version === 'HTTP/1.0' ? connection !== 'keep-alive' : connection === 'close';
  const path = head.target.slice(1).split('?')[0] ?? '';
  const warm = (head.method === 'GET' || head.method === 'HEAD') && head.target.startsWith('/') && WARM.has(path);
  return { text: render(head), method: head.method, settled: warm && !closes, hostile: false, closes, label };
}

/** A valid GET or HEAD of /:code. */
const redirectHead: fc.Arbitrary<Head> = fc
  .record({
    method: pick('GET', 'HEAD'),
    code: anyCode,
    query,
    version: fc.oneof({ weight: 6, arbitrary: fc.constant('HTTP/1.1') }, { weight: 1, arbitrary: fc.constant('HTTP/1.0') }),
    host: fc.option(hostLine, { nil: undefined, freq: 4 }),
    // A request that closes ends the pipeline: rarely, so that most pipelines are long.
    connection: fc.oneof(
      { weight: 5, arbitrary: fc.constant(undefined) },
      { weight: 3, arbitrary: fc.constant('keep-alive') },
      { weight: 1, arbitrary: fc.constant('close') },
    ),
    contentLength: fc.option(header('Content-Length', fc.constant('0')), { nil: undefined }),
    extras: fc.array(extraHeader, { maxLength: 6 }),
  })
  .chain((r) => {
    const http10 = r.version === 'HTTP/1.0';
    // HTTP/1.1 needs exactly one Host; HTTP/1.0 may have one. HTTP/1.0 closes unless asked not to.
    const host = r.host ?? (http10 ? undefined : 'Host: sho.rt');
    const connection = http10 && r.connection === 'close' ? undefined : r.connection;
    const lines = [...r.extras];
    if (host !== undefined) lines.push(host);
    if (r.contentLength !== undefined) lines.push(r.contentLength);
    return fc
      .tuple(fc.mixedCase(fc.constant('Connection')), ows, fc.mixedCase(fc.constant(connection ?? '')))
      .chain(([name, space, value]) => shuffled(connection === undefined ? lines : [...lines, `${name}:${space}${value}`]))
      .map((order): Head => ({
        method: r.method,
        target: `/${r.code}${r.query}`,
        version: r.version,
        lines: order,
        body: '',
        eol: '\r\n',
      }));
  });

export const redirectRequest: fc.Arbitrary<Request> = redirectHead.map((head) => requestOf(head, 'redirect'));

const json = 'application/json';
/** Requests for Fastify's routes whose answers do not change from one call to the next. */
const API: readonly [method: string, target: string, contentType?: string, body?: string][] = [
  ['GET', '/healthz'],
  ['HEAD', '/healthz'],
  ['GET', '/docs/json'],
  ['HEAD', '/docs/json'],
  ['GET', '/docs/json?x=1'],
  ['GET', '/links/abc-1'],
  ['GET', '/links/abc-1/stats'],
  ['DELETE', '/links/abc-1'],
  ['GET', '/no/such/route'],
  ['OPTIONS', '/abc-1'],
  ['PUT', '/abc-1'],
  ['POST', '/links', json, '{"url": "https://example.com/"'],
  ['POST', '/links', json, '{"url":"javascript:alert(1)"}'],
  ['POST', '/links', json, ''],
  ['POST', '/links', 'text/plain', '{"url":"https://example.com/"}'],
];

export const apiRequest: fc.Arbitrary<Request> = fc
  .record({
    route: fc.constantFrom(...API),
    version: pick('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0'),
    keepAlive: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    extras: fc.array(extraHeader, { maxLength: 3 }),
  })
  .chain(({ route: [method, target, contentType, body], version, keepAlive, extras }) => {
    const http10 = version === 'HTTP/1.0';
    const lines = [...extras, 'Host: sho.rt'];
    if (contentType !== undefined) lines.push(`Content-Type: ${contentType}`);
    if (body !== undefined) lines.push(`Content-Length: ${body.length}`);
    if (http10 && keepAlive) lines.push('Connection: keep-alive');
    if (!http10 && !keepAlive) lines.push('Connection: close');
    return shuffled(lines).map((order): Request => ({
      text: render({ method, target, version, lines: order, body: body ?? '', eol: '\r\n' }),
      method,
      settled: false,
      hostile: false,
      closes: !keepAlive,
      label: 'api',
    }));
  });

// ---------------------------------------------------------------------------------------------
// Hostile shapes: each changes a valid redirect request in one way that the fast path must not take

export interface Shape {
  readonly name: string;
  /** How often fast-check picks it, against 4 for most. */
  readonly weight: number;
  /** The shape on a generated base request, with generated parameters. */
  readonly arbitrary: fc.Arbitrary<Request>;
  /** The shape with fixed parameters on a given base, for the focused tests. */
  example(base: Head): Request;
}

const OVERFLOWING = new Set(['long-target', 'long-header', 'many-headers']);

function shape<P>(name: string, params: fc.Arbitrary<P>, example: NoInfer<P>, apply: (head: Head, p: NoInfer<P>) => Head | string): Shape {
  const make = (base: Head, p: P): Request => {
    const made = apply(structuredClone(base), p);
    return {
      text: typeof made === 'string' ? made : render(made),
      // For HEAD answers without a body; leading line ends and spaces are what some shapes add.
      method: typeof made === 'string' ? (/^\s*(\S+)/.exec(made)?.[1] ?? '') : made.method,
      settled: false,
      hostile: true,
      closes: true,
      overflows: OVERFLOWING.has(name),
      label: `hostile:${name}`,
    };
  };
  return {
    name,
    weight: 4,
    arbitrary: fc.tuple(redirectHead, params).map(([base, p]) => make(base, p)),
    example: (base) => make(base, example),
  };
}

/** A position in a string of `length` characters, as a fraction drawn by fast-check. */
const at = (fraction: number, length: number) => Math.min(length, Math.floor(fraction * (length + 1)));
const fraction = fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true });
/** Where the head ends in rendered text: insertions before it stay in the request line or headers. */
const headLength = (head: Head) => render({ ...head, body: '' }).length - 2 * head.eol.length;
const insertInHead = (head: Head, where: number, what: string) => {
  const text = render(head);
  const i = at(where, headLength(head));
  return text.slice(0, i) + what + text.slice(i);
};
const withLine = (head: Head, line: string, where = 1): Head => ({
  ...head,
  lines: head.lines.toSpliced(at(where, head.lines.length), 0, line),
});
const obsText = stringOf(chars(0x80, 0xff), 1, 4);
const anyByte = stringOf(chars(0x00, 0xff), 1, 3);
/** About n bytes of header lines of random size. */
const filler = (n: number, each: number) =>
  Array.from({ length: Math.ceil(n / (each + 10)) }, (_, i) => `X-Fill-${i}: ${'f'.repeat(each)}`);

/** A shape that node:http never answers (it waits for more): each costs its stream the full patience. */
const rare = (s: Shape): Shape => ({ ...s, weight: 1 });

export const SHAPES: readonly Shape[] = [
  shape('cl-te', fc.nat(20), 5, (h, n) => ({
    ...withLine(withLine(h, `Content-Length: ${n}`), 'Transfer-Encoding: chunked'),
    body: '0\r\n\r\n',
  })),
  shape('duplicate-cl', fc.tuple(fc.nat(5), fc.nat(5)), [0, 0], (h, [a, b]) => ({
    ...withLine(withLine(h, `Content-Length: ${a}`, 0), `Content-Length: ${b}`),
    body: 'x'.repeat(Math.max(a, b)),
  })),
  shape('cl-with-body', fc.tuple(fc.integer({ min: 1, max: 20 }), stringOf(chars(0, 255), 20, 20)), [3, 'abc'], (h, [n, bytes]) => ({
    ...withLine(h, `Content-Length: ${n}`),
    body: bytes.padEnd(n, 'b').slice(0, n),
  })),
  shape('cl-invalid', pick('abc', '-1', '0x10', '1 2', '+0', '00', '1,1', '', '99999999999999999999'), 'abc', (h, v) =>
    withLine(h, `Content-Length: ${v}`),
  ),
  shape('te-chunked', fc.array(stringOf(VCHAR, 1, 10), { maxLength: 3 }), ['abc'], (h, parts) => ({
    ...withLine(h, 'Transfer-Encoding: chunked'),
    body: `${parts.map((p) => `${p.length.toString(16)}\r\n${p}\r\n`).join('')}0\r\n\r\n`,
  })),
  shape('te-other', pick('gzip', 'chunked, gzip', 'identity', 'chunked\r\nTransfer-Encoding: chunked', 'xchunked'), 'gzip', (h, v) =>
    withLine(h, `Transfer-Encoding: ${v}`),
  ),
  shape('obs-fold', fc.tuple(fraction, pick(' ', '\t', '  '), stringOf(VCHAR, 0, 10)), [1, ' ', 'folded'], (h, [where, ws, rest]) =>
    withLine(h, `${ws}${rest}`, where),
  ),
  shape('bare-cr', fraction, 0.5, (h, where) => insertInHead(h, where, '\r')),
  shape('bare-lf', fc.oneof(fc.constant(-1), fc.nat(10)), -1, (h, which) => {
    if (which === -1) return { ...h, eol: '\n' };
    // One line end of the head as a bare LF.
    const text = render(h);
    const ends = [...text.matchAll(/\r\n/g)].map((m) => m.index);
    const i = ends[which % ends.length] ?? 0;
    return text.slice(0, i) + text.slice(i + 1);
  }),
  shape('nul', fraction, 0.9, (h, where) => insertInHead(h, where, '\0')),
  shape('control-in-value', fc.constantFrom(...chars(1, 8), ...chars(0x0b, 0x1f), '\x7f'), '\x01', (h, c) => withLine(h, `X-Ctl: a${c}b`)),
  shape('space-before-colon', pick(' ', '\t', '  '), ' ', (h, ws) => withLine(h, `X-Spaced${ws}: value`)),
  shape('empty-name', fieldValue, 'value', (h, v) => withLine(h, `:${v}`)),
  shape('bad-name', pick('X(a)', 'X@y', 'X"y"', 'X y', 'X\u00e9', 'X/y', 'X{y}'), 'X(a)', (h, n) => withLine(h, `${n}: value`)),
  shape('no-colon', pick('Foo bar', 'Foo', 'Host sho.rt'), 'Foo bar', (h, l) => withLine(h, l)),
  shape('absolute-form', pick('http://x', 'https://sho.rt', 'HTTP://SHO.RT:80', 'http://[::1]'), 'http://x', (h, origin) => ({
    ...h,
    target: `${origin}${h.target}`,
  })),
  shape('asterisk-form', pick('GET', 'HEAD', 'OPTIONS'), 'GET', (h, method) => ({ ...h, method, target: '*' })),
  shape('lowercase-method', pick('get', 'Get', 'hEAD', 'head', 'gET'), 'get', (h, method) => ({ ...h, method })),
  rare(shape('http-0.9', fc.boolean(), false, (h, blankLine) => `${h.method} ${h.target}\r\n${blankLine ? '\r\n' : ''}`)),
  shape('h2-preface', fc.constant(null), null, () => 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
  shape('long-target', fc.integer({ min: 16_300, max: 20_000 }), 17_000, (h, n) => ({ ...h, target: `/${'a'.repeat(n)}` })),
  shape('long-header', fc.integer({ min: 16_300, max: 20_000 }), 17_000, (h, n) => withLine(h, `X-Long: ${'v'.repeat(n)}`)),
  shape(
    'many-headers',
    fc.tuple(fc.integer({ min: 15_500, max: 18_000 }), fc.integer({ min: 10, max: 200 })),
    [17_000, 80],
    (h, [n, each]) => ({
      ...h,
      lines: [...h.lines, ...filler(n, each)],
    }),
  ),
  shape('expect-continue', fc.mixedCase(fc.constant('100-continue')), '100-continue', (h, v) => withLine(h, `Expect: ${v}`)),
  shape('expect-other', pick('foo', '100-continue, foo', '200-ok'), 'foo', (h, v) => withLine(h, `Expect: ${v}`)),
  rare(
    shape('upgrade', fc.boolean(), true, (h, connection) =>
      withLine(connection ? withLine(h, 'Connection: Upgrade') : h, 'Upgrade: websocket'),
    ),
  ),
  shape('two-hosts', pick('sho.rt', 'evil.example', ''), 'sho.rt', (h, v) => withLine(withLine(h, 'Host: sho.rt', 0), `Host: ${v}`)),
  shape('no-host', fc.constant(null), null, (h) => ({ ...h, version: 'HTTP/1.1', lines: h.lines.filter((l) => !/^host:/i.test(l)) })),
  shape('bad-host', pick('a b', 'x/y', 'a@b', 'host:80:80', 'h\u00e9.example', '[::1', 'a,b', 'x?y'), 'a b', (h, v) => ({
    ...h,
    lines: [...h.lines.filter((l) => !/^host:/i.test(l)), `Host: ${v}`],
  })),
  shape('obs-text', fc.tuple(obsText, pick('X-Text', 'User-Agent', 'Referer')), ['\u00e9\u00ff', 'X-Text'], (h, [text, name]) =>
    withLine(h, `${name}: a${text}b`),
  ),
  shape('obs-text-target', obsText, '\u00e9', (h, text) => ({ ...h, target: `${h.target}${text}` })),
  shape('percent-path', pick('/%61bc-1', '/abc%2D1', '/%41', '/%zz', '/abc-1%', '/%2e%2e', '/abc%00'), '/%61bc-1', (h, target) => ({
    ...h,
    target,
  })),
  shape('double-slash', pick('//abc-1', '//', '///x', '//abc-1?x'), '//abc-1', (h, target) => ({ ...h, target })),
  shape('two-segments', pick('/abc-1/def', '/abc-1/', '/links/', '/docs/', '/a/b/c/d'), '/abc-1/def', (h, target) => ({ ...h, target })),
  shape('fragment', pick('#frag', '?x#frag', '#', '?#'), '?x#frag', (h, suffix) => ({ ...h, target: `${h.target}${suffix}` })),
  shape('unknown-method', pick('FOO', 'BREW', 'PRI', 'PROPFIND', 'PURGE', 'MKCOL', 'SEARCH', 'QUERY', 'G'), 'FOO', (h, method) => ({
    ...h,
    method,
  })),
  shape('other-method', pick('POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE'), 'POST', (h, method) => ({ ...h, method })),
  shape('connect', pick('sho.rt:443', 'example.com:80', '/abc-1'), 'sho.rt:443', (h, target) => ({ ...h, method: 'CONNECT', target })),
  shape(
    'bad-version',
    pick('HTTP/1.2', 'HTTP/2.0', 'HTTP/1.10', 'http/1.1', 'HTTP/1', 'HTTP/01.1', 'HTTP/3.0', 'HTTP/1.1 '),
    'HTTP/1.2',
    (h, version) => ({
      ...h,
      version,
    }),
  ),
  shape('odd-spacing', pick('double-space', 'tab', 'leading-crlf', 'leading-space', 'trailing-space'), 'double-space', (h, how) => {
    const text = render(h);
    switch (how) {
      case 'double-space':
        return text.replace(' ', '  ');
      case 'tab':
        return text.replace(' ', '\t');
      case 'leading-crlf':
        return `\r\n${text}`;
      case 'leading-space':
        return ` ${text}`;
      default:
        return text.replace('\r\n', ' \r\n');
    }
  }),
  shape(
    'byte-flip',
    fc.array(fc.tuple(fraction, pick('replace', 'insert', 'delete'), anyByte), { minLength: 1, maxLength: 3 }),
    [[0.3, 'replace', '\u00ff']],
    (h, edits) => {
      let text = render(h);
      for (const [where, how, bytes] of edits) {
        const i = at(where, text.length - 1);
        if (how === 'insert') text = text.slice(0, i) + bytes + text.slice(i);
        else if (how === 'delete') text = text.slice(0, i) + text.slice(i + 1);
        else text = text.slice(0, i) + bytes + text.slice(i + bytes.length);
      }
      return text;
    },
  ),
];

export const hostileRequest: fc.Arbitrary<Request> = fc.oneof(...SHAPES.map((s) => ({ arbitrary: s.arbitrary, weight: s.weight })));

// ---------------------------------------------------------------------------------------------
// Streams: requests, and how they are written

export type Pause = 'immediate' | 1 | 2 | 4;
export type Writing =
  | { readonly mode: 'whole' }
  | { readonly mode: 'per-request'; readonly pause: Pause }
  | { readonly mode: 'split'; readonly cuts: readonly number[]; readonly pause: Pause }
  | { readonly mode: 'bytes' };

export interface Stream {
  readonly requests: readonly Request[];
  readonly writing: Writing;
}

/** Streams written one byte at a time are short: a byte per event-loop turn. */
const BYTES_MAX = 2048;

export function streamText(stream: Stream): string {
  return stream.requests.map((r) => r.text).join('');
}

export function streamOf(requests: readonly Request[], writing: Writing): Stream {
  const stream = { requests, writing };
  // How fast-check prints a counterexample: the failure message has the whole stream.
  return Object.assign(stream, {
    [fc.toStringMethod]: () => `${describeWriting(stream)}: ${JSON.stringify(streamText(stream).slice(0, 100))}`,
  });
}

const anyPause: fc.Arbitrary<Pause> = pick<Pause>('immediate', 'immediate', 1, 2, 4);
export const anyWriting: fc.Arbitrary<Writing> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ mode: 'whole' } as const) },
  { weight: 2, arbitrary: anyPause.map((p) => ({ mode: 'per-request', pause: p }) as const) },
  {
    weight: 4,
    arbitrary: fc
      .record({ cuts: fc.array(fraction, { minLength: 1, maxLength: 12 }), pause: anyPause })
      .map(({ cuts, pause }) => ({ mode: 'split', cuts, pause }) as const),
  },
  { weight: 1, arbitrary: fc.constant({ mode: 'bytes' } as const) },
);

/** Valid requests only, or valid ones with hostile ones among them, pipelined 1 to 8 on one connection. */
export const anyStream: fc.Arbitrary<Stream> = fc
  .oneof(
    fc.array(fc.oneof({ weight: 3, arbitrary: redirectRequest }, { weight: 1, arbitrary: apiRequest }), { minLength: 1, maxLength: 8 }),
    fc.array(
      fc.oneof({ weight: 4, arbitrary: redirectRequest }, { weight: 1, arbitrary: apiRequest }, { weight: 3, arbitrary: hostileRequest }),
      {
        minLength: 1,
        maxLength: 8,
      },
    ),
  )
  .chain((requests) => anyWriting.map((w) => streamOf(requests, w)));

interface Step {
  /** What to wait for first: the answers to this many requests (a barrier), or a pause. */
  readonly before: 'nothing' | Pause | { readonly answers: number };
  readonly bytes: Buffer;
}

/**
 * Where the stream is cut, and what the sender waits for before each piece. A request that may
 * make node:http fail (hostile, or any request after one that asked to close) waits for the
 * answers before it, unless every request since the last wait is answered before the next read
 * (cached redirects are: a stream of them and a malformed request still goes in one write).
 *
 * Also in one write: node:http's own answer to a read holding an API request (answered after a
 * turn of the microtask queue) or a lookup, then a malformed request, depends on how the bytes
 * reached its parser. Read off its own socket (C++, the queues run after each request) the
 * answer comes before the 400; handed to it through the socket's stream, as the fast path hands
 * a connection over and as node:http reads TLS sockets, the 400 closes the connection first. The
 * fast path cannot hand bytes back to the socket; see README, "Three entrances for redirects".
 */
export function plan(stream: Stream): Step[] {
  const text = streamText(stream);
  const starts: number[] = [];
  /** Offset of a barrier -> how many requests come before it. */
  const barriers = new Map<number, number>();
  let offset = 0;
  let closing = false;
  let unsettled = false;
  let sinceWait = 0;
  for (const [i, request] of stream.requests.entries()) {
    starts.push(offset);
    if ((request.hostile || closing) && (unsettled || (request.overflows === true && sinceWait > 0))) {
      barriers.set(offset, i);
      unsettled = false;
      sinceWait = 0;
    }
    sinceWait++;
    offset += request.text.length;
    closing ||= request.closes;
    unsettled ||= !request.settled;
  }
  const w = stream.writing;
  const cuts = new Set<number>([0, ...barriers.keys()]);
  let pause: 'nothing' | Pause = 'nothing';
  if (w.mode === 'per-request') {
    for (const s of starts) cuts.add(s);
    pause = w.pause;
  } else if (w.mode === 'split') {
    for (const c of w.cuts) cuts.add(at(c, text.length));
    pause = w.pause;
  } else if (w.mode === 'bytes') {
    const every = Math.ceil(text.length / BYTES_MAX);
    for (let i = 0; i < text.length; i += every) cuts.add(i);
    pause = 'immediate';
  }
  const points = [...cuts].filter((c) => c < text.length).sort((a, b) => a - b);
  return points.map((start, i) => {
    const answers = barriers.get(start);
    return {
      before: i === 0 ? 'nothing' : answers === undefined ? pause : { answers },
      bytes: Buffer.from(text.slice(start, points[i + 1] ?? text.length), 'latin1'),
    };
  });
}

export function describeWriting(stream: Stream): string {
  const w = stream.writing;
  const steps = plan(stream);
  const barriers: number[] = [];
  let offset = 0;
  for (const step of steps) {
    if (typeof step.before === 'object') barriers.push(offset);
    offset += step.bytes.length;
  }
  const pieces =
    w.mode === 'whole' || steps.length === 1
      ? 'in one write'
      : w.mode === 'bytes'
        ? `in ${steps.length} writes of ${steps[0]?.bytes.length ?? 0} byte(s), setImmediate between them`
        : `in ${steps.length} writes of [${steps.map((s) => s.bytes.length).join(', ')}] bytes, ` +
          `${w.pause === 'immediate' ? 'setImmediate' : `${w.pause} ms`} between them`;
  return barriers.length === 0 ? pieces : `${pieces}; waiting for the answers so far before bytes ${barriers.join(', ')}`;
}

// ---------------------------------------------------------------------------------------------
// The sender: one stream on one real connection

export interface Timing {
  /** Once every request has its answer: quiet this long after the last byte received, */
  readonly quietMs: number;
  /** and at least this long after the last byte sent. */
  readonly settleMs: number;
  /** While answers are missing: this long after the last byte either way. */
  readonly patienceMs: number;
}

export interface Outcome {
  /** The bytes received, one character per byte (latin1). */
  readonly text: string;
  /** Closed by the server (a FIN or a reset), or still open once quiet. */
  readonly fate: 'closed' | 'open';
}

/** Final answers whole in `text`, answering requests whose methods are `methods` (a HEAD answer has no body). */
export function countAnswers(text: string, methods: readonly string[]): number {
  let from = 0;
  let count = 0;
  for (;;) {
    const end = text.indexOf('\r\n\r\n', from);
    if (end === -1) return count;
    const head = text.slice(from, end);
    let next = end + 4;
    const status = Number(head.slice(9, 12));
    if (status >= 100 && status < 200) {
      from = next;
      continue;
    }
    const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head)?.[1];
    if (methods[count] !== 'HEAD' && length !== undefined) next += Number(length);
    if (next > text.length) return count;
    count++;
    from = next;
  }
}

class Connection {
  readonly #socket: net.Socket;
  readonly #received: Buffer[] = [];
  #lastReceived = performance.now();
  #lastSent = performance.now();
  #closed = false;
  #wake: (() => void) | undefined;

  static async open(port: number): Promise<Connection> {
    const socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
    await once(socket, 'connect');
    return new Connection(socket);
  }

  private constructor(socket: net.Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#received.push(chunk);
      this.#lastReceived = performance.now();
      this.#wake?.();
    });
    // A write that meets a closed connection gets a reset: the server's close all the same.
    socket.on('error', () => {});
    const close = () => {
      this.#closed = true;
      this.#wake?.();
    };
    socket.on('end', close);
    socket.on('close', close);
  }

  get closed(): boolean {
    return this.#closed;
  }

  text(): string {
    return Buffer.concat(this.#received).toString('latin1');
  }

  write(bytes: Buffer): void {
    if (this.#closed || !this.#socket.writable) return;
    this.#socket.write(bytes);
    this.#lastSent = performance.now();
  }

  /**
   * Until the server closes, or `answered()` and quiet for `timing` (at once if `barrier`), or
   * patience runs out waiting for the answers.
   */
  async settle(timing: Timing, answered: () => boolean, barrier = false): Promise<void> {
    for (;;) {
      if (this.#closed) return;
      const done = answered();
      if (done && barrier) return;
      const until = done
        ? Math.max(this.#lastReceived + timing.quietMs, this.#lastSent + timing.settleMs)
        : Math.max(this.#lastReceived, this.#lastSent) + timing.patienceMs;
      const left = until - performance.now();
      if (left <= 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  destroy(): void {
    this.#socket.destroy();
  }
}

const waitFor = (p: Pause) =>
  p === 'immediate' ? new Promise<void>((resolve) => setImmediate(resolve)) : new Promise<void>((resolve) => setTimeout(resolve, p));

/** Writes `stream` to 127.0.0.1:`port` as its plan says, and reads until the server closes or all is quiet. */
export async function send(port: number, stream: Stream, timing: Timing): Promise<Outcome> {
  const connection = await Connection.open(port);
  try {
    const methods = stream.requests.map((r) => r.method);
    const answered = (n: number) => () => countAnswers(connection.text(), methods) >= n;
    for (const { before, bytes } of plan(stream)) {
      if (connection.closed) break;
      if (typeof before === 'object') await connection.settle(timing, answered(before.answers), true);
      else if (before !== 'nothing') await waitFor(before);
      connection.write(bytes);
    }
    await connection.settle(timing, answered(methods.length));
    return { text: connection.text(), fate: connection.closed ? 'closed' : 'open' };
  } finally {
    connection.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// The comparator

/** The bytes as compared: the value of a Date header is the only thing allowed to differ. */
export function normalise(text: string): string {
  return text.replace(/(\r\ndate:[ \t]*)[^\r\n]*/gi, '$1<date>');
}

export function sameOutcome(a: Outcome, b: Outcome): boolean {
  return a.fate === b.fate && normalise(a.text) === normalise(b.text);
}

/** Status codes of the answers in `text` (a status line in a body would count too: none of these bodies has one). */
export function statusesOf(text: string): number[] {
  return [...text.matchAll(/HTTP\/1\.[01] (\d{3}) [^\r\n]*\r\n/g)].map((m) => Number(m[1]));
}

export interface Mismatch {
  /** How the two sides are called in the message: their FAST_PATH settings. */
  readonly sides: readonly [string, string];
  readonly stream: Stream;
  readonly fast: Outcome;
  readonly reference: Outcome;
  /** The same stream sent again on its own, with more patience; undefined when too many differed to send each again. */
  readonly again: { readonly fast: Outcome; readonly reference: Outcome } | undefined;
}

/** Whether a mismatch went away when its stream was sent again alone. */
export const wentAway = (m: Mismatch): boolean => m.again !== undefined && sameOutcome(m.again.fast, m.again.reference);

/**
 * `text` as a JSON string, with a run of more than 32 of one character written as ‹a×17000›, and
 * cut to about `max` characters around `focus`.
 */
export function shown(text: string, focus = 0, max = 4000): string {
  const from = text.length <= max ? 0 : Math.max(0, Math.min(focus - max / 4, text.length - max));
  const window = text.slice(from, from + max);
  const quoted = JSON.stringify(window).replace(/([^\\"])\1{32,}/g, (run, c: string) => `‹${c}×${run.length}›`);
  const before = from > 0 ? `…(${from} characters) ` : '';
  const rest = text.length - from - window.length;
  return `${before}${quoted}${rest > 0 ? ` …(${rest} characters)` : ''}`;
}

export function explain(m: Mismatch): string {
  const a = normalise(m.fast.text);
  const b = normalise(m.reference.text);
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const show = (o: Outcome) => `(${o.fate}, ${o.text.length} bytes) ${shown(normalise(o.text), i)}`;
  const [fast, reference] = m.sides.map((side) => side.padEnd(16));
  return [
    `the stream (${m.stream.requests.map((r) => r.label).join(', ')}), written ${describeWriting(m.stream)}:`,
    `  ${shown(streamText(m.stream), 0, Infinity)}`,
    `what came back (Date values as <date>), ${a === b ? `the same bytes, but the connection ${m.fast.fate} and ${m.reference.fate}` : `first difference at character ${i}`}:`,
    `  ${fast}${show(m.fast)}`,
    `  ${reference}${show(m.reference)}`,
    m.again === undefined
      ? 'not sent again: too many streams of the batch differed'
      : wentAway(m)
        ? 'sent again alone, both answered the same'
        : `sent again alone, still different:\n  ${fast}${show(m.again.fast)}\n  ${reference}${show(m.again.reference)}`,
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// The pair of apps

export interface Side {
  readonly app: FastifyInstance;
  readonly port: number;
}

export interface Pair {
  /** FAST_PATH=true (unless startPair was told otherwise) */
  readonly fast: Side;
  /** The FAST_PATH setting of `fast`. */
  readonly fastPath: string;
  /** FAST_PATH=false: node:http for every request. */
  readonly reference: Side;
  readonly pool: pg.Pool;
  /** Server-side connections still open. */
  leftOpen(): number;
}

/**
 * Settings of both apps. No 404 budget (testConfig), so that the order in which the two apps see
 * concurrent streams cannot matter. Nothing leaves the LRU during a run (the longest TTLs there
 * are), so a warm code stays warm. No request times out however slowly it is written; idle
 * connections are closed after 5 s (+ Node's 1 s), far from any quiet period below.
 */
export const PAIR_ENV: Readonly<Record<string, string>> = {
  HEADERS_TIMEOUT_MS: '120000',
  REQUEST_TIMEOUT_MS: '120000',
  KEEP_ALIVE_TIMEOUT_MS: '5000',
  CACHE_TTL_SECONDS: String(7 * 24 * 3600),
  NEGATIVE_TTL_SECONDS: '3600',
  NEGATIVE_MAX_ENTRIES: '1000000',
};

async function listen(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

/** Connections to `app` that are still open, and a way to end them. */
function track(app: FastifyInstance): { open: Set<net.Socket> } {
  const open = new Set<net.Socket>();
  app.server.on('connection', (socket: net.Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return { open };
}

/**
 * The app with FAST_PATH=true (or `fastPath`: "false" compares node:http with itself, which shows
 * the harness's own noise) and with FAST_PATH=false on `databaseUrl`, listening, closed after
 * `t`. Connections still open on the server then are destroyed first (`leftOpen` says how many):
 * a socket that no one reads (after a CONNECT, see edge/server.ts) never learns that its client
 * went away, and app.close() would wait for it forever.
 */
export async function startPair(t: Cleanup, databaseUrl: string, env: Record<string, string> = {}, fastPath = 'true'): Promise<Pair> {
  const closes: (() => Promise<void>)[] = [];
  const own: Cleanup = { after: (fn) => closes.push(fn) };
  const fast = await startApp(own, databaseUrl, { ...PAIR_ENV, ...env, FAST_PATH: fastPath });
  const reference = await startApp(own, databaseUrl, { ...PAIR_ENV, ...env, FAST_PATH: 'false' });
  const tracked = [track(fast.app), track(reference.app)];
  const pair: Pair = {
    fast: { app: fast.app, port: await listen(fast.app) },
    fastPath,
    reference: { app: reference.app, port: await listen(reference.app) },
    pool: fast.pool,
    leftOpen: () => tracked.reduce((n, { open }) => n + open.size, 0),
  };
  t.after(async () => {
    for (const { open } of tracked) for (const socket of open) socket.destroy();
    for (const close of closes) await close();
  });
  return pair;
}

/** LIVE_LINKS through the API, GONE_LINKS straight into Postgres. */
export async function createLinks(pair: Pair): Promise<void> {
  for (const [alias, url] of Object.entries(LIVE_LINKS)) {
    const created = await createLink(pair.fast.app, { url, alias });
    if (created.status !== 201) throw new Error(`creating ${alias}: ${created.status} ${JSON.stringify(created.body)}`);
  }
  for (const [alias, body] of Object.entries(RULED_LINKS)) {
    const created = await createLink(pair.fast.app, { ...body, alias });
    if (created.status !== 201) throw new Error(`creating ${alias}: ${created.status} ${JSON.stringify(created.body)}`);
  }
  for (const [code, why] of Object.entries(GONE_LINKS)) {
    await pair.pool.query(
      why === 'expired'
        ? `INSERT INTO links (code, url, expires_at) VALUES ($1, 'https://example.com/gone', now() - interval '1 day')`
        : `INSERT INTO links (code, url, disabled) VALUES ($1, 'https://example.com/gone', true)`,
      [code],
    );
  }
}

/** Asks both apps for every warm code, and checks that a second round is answered from their LRUs. */
export async function warmCaches(pair: Pair): Promise<void> {
  for (const side of [pair.fast, pair.reference]) {
    for (const c of WARM) await side.app.inject({ url: `/${c}` });
    const misses = lruMisses(side.app);
    for (const c of WARM) await side.app.inject({ url: `/${c}` });
    if (lruMisses(side.app) !== misses) throw new Error('a warm code missed the LRU: its answers would wait for Postgres');
  }
}

/** A batch with more streams that differ than this is not sent again stream by stream: the difference is not timing. */
const AGAIN_MAX = 4;

/** Both sides' outcomes of each stream, all streams at once; a stream that differs is sent again alone. */
export async function compare(
  pair: Pair,
  streams: readonly Stream[],
  timing: Timing,
  patient: Timing,
): Promise<{ outcomes: [Outcome, Outcome][]; mismatches: Mismatch[] }> {
  const outcomes = await Promise.all(
    streams.map((s) => Promise.all([send(pair.fast.port, s, timing), send(pair.reference.port, s, timing)])),
  );
  const differing = streams.flatMap((stream, i) => {
    const [fast, reference] = outcomes[i] as [Outcome, Outcome];
    return sameOutcome(fast, reference) ? [] : [{ stream, fast, reference }];
  });
  const mismatches: Mismatch[] = [];
  for (const m of differing) {
    const again =
      differing.length > AGAIN_MAX
        ? undefined
        : await Promise.all([send(pair.fast.port, m.stream, patient), send(pair.reference.port, m.stream, patient)]);
    const sides = [`FAST_PATH=${pair.fastPath}`, 'FAST_PATH=false'] as const;
    mismatches.push({ ...m, sides, again: again === undefined ? undefined : { fast: again[0], reference: again[1] } });
  }
  return { outcomes, mismatches };
}
