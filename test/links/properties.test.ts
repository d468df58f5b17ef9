// Property tests (issue #5). Whatever string is given as a URL, it is refused with a 4xx or stored
// in a form that is safe to write as a Location header and re-normalises to itself. Whatever path
// is asked for, the answer is the one a small model of the routes gives (the link's 302, its 410,
// a 404, or a 4xx for paths of more than one segment), and never a 5xx.
//
// The URL properties hold for any set of rejection rules: they never say which inputs are refused.
// On failure fast-check prints the seed and the shrunk counterexample; replay with
// fc.assert(..., { seed, path }).

import assert from 'node:assert/strict';
import { validateHeaderValue } from 'node:http';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { RESERVED_WORDS } from '../../src/core/codes.ts';
import { targetPolicyOf, type TargetPolicy } from '../../src/core/target-policy.ts';
import { checkTargetUrl, URL_MAX_LENGTH } from '../../src/core/url-rules.ts';
import { ERRORS, type ErrorCode } from '../../src/errors.ts';
import { TEST_BASE_URL } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { ERROR_LEVEL, startLoggedApp, type LogLine } from '../helpers/logs.ts';
import { parseResponse, rawExchange } from '../helpers/raw-http.ts';

const SELF_HOST = new URL(TEST_BASE_URL).hostname;
const CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'.split('');

// ---------------------------------------------------------------------------------------------
// The contract of a stored URL, and the arbitraries that try to break it

function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERRORS, code);
}

/** What every stored URL promises, whichever rules let it in. */
function assertStorable(url: string, policy: TargetPolicy): void {
  assert.deepEqual(checkTargetUrl(url, policy), { ok: true, url }, 'the stored form is accepted as itself');
  const parsed = new URL(url);
  assert.equal(parsed.href, url, 'the stored form is what the WHATWG parser gives back');
  assert.ok(parsed.protocol === 'http:' || parsed.protocol === 'https:', `scheme ${parsed.protocol}`);
  assert.match(url, /^[\x21-\x7e]+$/, 'printable ASCII, no spaces');
  assert.ok(url.length <= URL_MAX_LENGTH, `length ${url.length}`);
  validateHeaderValue('location', url);
}

/** A verdict of checkTargetUrl is a refusal with a 4xx code, or a storable URL. */
function assertVerdictKeepsContract(input: string, policy: TargetPolicy): boolean {
  const verdict = checkTargetUrl(input, policy);
  if (!verdict.ok) {
    assert.ok(isErrorCode(verdict.code), `unknown code ${verdict.code}`);
    const status = ERRORS[verdict.code].status;
    assert.ok(status >= 400 && status < 500, `${verdict.code} is a ${status}`);
    return false;
  }
  assertStorable(verdict.url, policy);
  return true;
}

const pick = <T>(...values: T[]) => fc.constantFrom(...values);

// Each generator below is mostly plausible and sometimes hostile, so that both verdicts are common:
// a property whose inputs are all refused would say nothing about what gets stored.
const often = <T>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<T>) => fc.oneof({ arbitrary: usual, weight: 4 }, { arbitrary: odd, weight: 1 });

// Schemes in odd case, look-alikes (Cyrillic "ѕ", fullwidth letters) and near misses.
const scheme = often(
  fc.mixedCase(pick('http', 'https')),
  pick('javascript', 'JaVaScRiPt', 'data', 'file', 'ftp', 'ws', 'blob', 'httpѕ', 'ｈｔｔｐ', 'ht tp', 'http+x', 'https ', ''),
);
const separator = often(pick('://'), pick(':', ':/', ':\\\\', ':/\\', ':\\/', '://\\', ':////', ':///', '//', '\\\\', ''));
const userinfo = often(pick(''), pick('user@', 'user:pass@', ':@', '@', 'a%40b@', 'evil.example@', 'x:@'));
const host = fc.oneof(
  fc.domain(),
  fc.ipV4(),
  fc.ipV6().map((ip) => `[${ip}]`),
  pick(
    'example.com',
    'localhost',
    SELF_HOST,
    SELF_HOST.toUpperCase(),
    `${SELF_HOST}.`,
    `a.${SELF_HOST}`,
    'example.com.',
    'exаmple.com' /* Cyrillic a */,
    'ｅｘａｍｐｌｅ.com',
    'ex%61mple.com',
    'xn--80ak6aa92e.com',
    'xn--',
    'bücher.example',
    '0x7f.1',
    '2130706433',
    '127.1',
    '0177.0.0.1',
    '８.８.８.８',
    '[::1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:8.8.8.8]',
    '[fe80::1%25eth0]',
    '169.254.169.254',
    '8.8.8.8',
    '1.1.1.1.',
    'bit.ly',
    'BIT.LY.',
    'a..b',
    '.',
    '',
    ' ',
    '%00',
    'exa mple.com',
    'example。com',
    'example．com',
    '㊙.example',
    'ß.example',
    'ＳＨＯ.ＲＴ',
  ),
);
const portPart = often(pick(''), pick(':80', ':443', ':0', ':65535', ':65536', ':', ':-1', ':8080', ':0x50', ':８０'));
// The characters that disguise, split or re-route a URL, and parts long enough to pass the limit.
const hostilePiece = fc.oneof(
  pick(
    ' ',
    '\t',
    '\n',
    '\r\n',
    '\u0000',
    '\u001b',
    '\u007f',
    '\u0085',
    '\u00a0',
    '\u00ad',
    '\u200b',
    '\u200e',
    '\u202e',
    '\u2066',
    '\u2028',
    '\u3000',
    '\ufeff',
    '\ud800',
    '\udc00',
    '%00',
    '%0a',
    '%0D%0A',
  ),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.tuple(pick('a', 'é', '%41', '/'), fc.integer({ min: 1, max: 2100 })).map(([c, n]) => c.repeat(n)),
);
const plainPiece = fc.oneof(
  fc.webSegment(),
  fc.string({ unit: 'grapheme-ascii', maxLength: 8 }),
  pick(
    '/',
    '//',
    '\\',
    '@',
    ':',
    '%',
    '%2',
    '%zz',
    '%2F',
    '%5C',
    '%25',
    '..',
    '.',
    '/../',
    '/./',
    '?',
    '#',
    '&',
    '=',
    '??',
    '##',
    '\ufffd',
    '😀',
    'é',
    'e\u0301',
    'ﬁ',
    'Ⓐ',
    '．',
    '。',
    '／',
    '＼',
    '⁄',
    '∕',
    '"',
    '<',
    '>',
    '`',
    '{',
    '|',
    '}',
    '^',
    "'",
  ),
);
// Mostly after a path, query or fragment delimiter; sometimes glued to the host or port.
const pieces = fc
  .tuple(often(pick('/', '/', '?', '#'), pick('')), fc.array(often(plainPiece, hostilePiece), { maxLength: 5 }))
  .map(([start, parts]) => start + parts.join(''));
const padding = often(pick(''), pick(' ', '  ', '\t', '\n', '\u00a0', '\u3000', '\u200b'));

/** Strings shaped like URLs, mixing the pieces that parsers disagree about. */
const urlish: fc.Arbitrary<string> = fc
  .tuple(padding, scheme, separator, userinfo, host, portPart, pieces, padding)
  .map((parts) => parts.join(''));

/** Any UTF-16 code unit, lone surrogates included (fast-check's units are whole code points). */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));

const asciiChar = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 });

/** After an http(s) scheme, anything. */
const afterScheme = fc
  .tuple(fc.mixedCase(pick('http://', 'https://')), fc.string({ unit: fc.oneof(codeUnit, asciiChar), maxLength: 80 }))
  .map(([prefix, rest]) => prefix + rest);

/** Any string, any Unicode, real web URLs and URL-shaped strings. */
const anyUrlInput: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: codeUnit }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  afterScheme,
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  { arbitrary: urlish, weight: 3 },
);

// ---------------------------------------------------------------------------------------------
// Pure: checkTargetUrl alone, no I/O

// Any policy: the contract must not depend on which hosts are let in.
const anyPolicy: fc.Arbitrary<TargetPolicy> = fc.record({
  selfHost: fc.constantFrom(SELF_HOST, 'example.com', 'localhost', 'xn--bcher-kva.example'),
  allowPrivate: fc.boolean(),
  allowShorteners: fc.boolean(),
  blockedDomains: fc
    .array(fc.oneof(fc.constantFrom('com', 'example.com', 'evil.example', '127.0.0.1', '[::1]'), fc.domain()), { maxLength: 3 })
    .map((domains) => new Set(domains)),
});

describe('checkTargetUrl keeps its contract for any input and any policy', () => {
  const cases: [string, fc.Arbitrary<string>, number][] = [
    ['any string of UTF-16 code units', fc.string({ unit: codeUnit, maxLength: 200 }), 1000],
    ['any string of Unicode code points', fc.string({ unit: 'binary', maxLength: 200 }), 1000],
    ['any string of graphemes', fc.string({ unit: 'grapheme', maxLength: 200 }), 1000],
    ['any string after an http(s) scheme', afterScheme, 2000],
    ['any web URL', fc.webUrl({ withQueryParameters: true, withFragments: true, size: 'medium' }), 2000],
    ['any web URL with odd-case scheme and padding', fc.tuple(padding, fc.mixedCase(fc.webUrl()), padding).map((p) => p.join('')), 1000],
    ['any URL-shaped mix of schemes, separators, hosts and disguising characters', urlish, 5000],
  ];
  for (const [what, arbitrary, numRuns] of cases) {
    test(`${what}: refused with a 4xx code, or stored in a form that re-normalises to itself and is a valid Location`, () => {
      let accepted = 0;
      fc.assert(
        fc.property(arbitrary, anyPolicy, (input, policy) => {
          if (assertVerdictKeepsContract(input, policy)) accepted++;
        }),
        { numRuns },
      );
      // Only for the generators that aim at URLs: a run that accepted nothing would prove nothing.
      if (!what.startsWith('any string of')) assert.ok(accepted > 0, `${what}: none accepted`);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// End to end: the real app on Postgres

type Target = { kind: 'live'; url: string } | { kind: 'gone'; code: 'LINK_EXPIRED' | 'LINK_DISABLED' };

/** What the app must answer for a request target it received. */
type Expected =
  | { kind: 'redirect'; location: string }
  | { kind: 'error'; status: number; code: ErrorCode }
  | { kind: 'route'; status: number } // a service route such as /healthz: 200 while the database is healthy
  | { kind: 'client-error' } // more than one segment: a 4xx, whichever
  | { kind: 'served' }; // a route of several segments (the docs, a QR code): any answer but a 5xx

/** What a GET of a one-word route answers without a key, where that is not 200. */
const ROUTE_STATUS: Readonly<Record<string, number>> = {
  links: 401,
  tags: 401,
  keys: 401,
  domains: 401,
  stats: 401,
  webhooks: 401,
  members: 401,
  invitations: 401,
  audit: 401,
  workspace: 401,
  mcp: 401,
  app: 308,
};

interface Answer {
  status: number;
  location: string | undefined;
  body: string;
}

describe('through the app', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let pool: pg.Pool;
  let lines: LogLine[];
  let policy: TargetPolicy;
  let port = 0;
  const links = new Map<string, Target>();
  const routes = new Set<string>();
  const cleanups: (() => Promise<void>)[] = [];

  before(async () => {
    database = await createTestDatabase('properties');
    // One test is of app.inject() itself (the other sends the same paths over sockets).
    const started = await startLoggedApp({ after: (fn) => cleanups.push(fn) }, database.url, {}, 'warn', { redirects: 'fastify' });
    ({ app, pool, lines } = started);
    policy = targetPolicyOf(started.config);
    for (const word of RESERVED_WORDS) if (app.hasRoute({ method: 'GET', url: `/${word}` })) routes.add(word);
    // Aliases and codes that answer 410, written straight to Postgres so no cache knows them yet.
    await pool.query(
      `INSERT INTO links (code, url, expires_at, disabled) VALUES
         ('Gone-exp', 'https://example.com/expired', now() - interval '1 day', false),
         ('Gone-off', 'https://example.com/disabled', NULL, true),
         ('Abc-1', 'https://example.com/alias', NULL, false),
         ('x_y', 'https://example.com/short', NULL, false)`,
    );
    links.set('Gone-exp', { kind: 'gone', code: 'LINK_EXPIRED' });
    links.set('Gone-off', { kind: 'gone', code: 'LINK_DISABLED' });
    links.set('Abc-1', { kind: 'live', url: 'https://example.com/alias' });
    links.set('x_y', { kind: 'live', url: 'https://example.com/short' });
    port = await listenPort(app);
  });
  after(async () => {
    for (const fn of cleanups) await fn();
    await database.drop();
  });

  const assertNoErrorLogged = () =>
    assert.deepEqual(
      lines.filter((line) => line.level >= ERROR_LEVEL),
      [],
      'no line at level error or above',
    );

  test('POST /links with any url: 201 with a storable URL that its code redirects to, or a coded 4xx', async () => {
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(anyUrlInput, async (input) => {
        const res = await app.inject({
          method: 'POST',
          url: '/links',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ url: input }),
        });
        if (res.statusCode !== 201) {
          assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${res.statusCode} ${res.body}`);
          assertErrorAnswer(res.statusCode, res.body);
          refused++;
          return;
        }
        const created = res.json<{ code: string; shortUrl: string; url: string }>();
        assertStorable(created.url, policy);
        assert.equal(res.headers.location, `${TEST_BASE_URL}/${created.code}`);
        const redirect = await app.inject({ url: `/${created.code}` });
        assert.equal(redirect.statusCode, 302);
        assert.equal(redirect.headers.location, created.url);
        links.set(created.code, { kind: 'live', url: created.url });
        accepted++;
      }),
      { numRuns: 300 },
    );
    assert.ok(accepted > 0 && refused > 0, `both answers seen: ${accepted} created, ${refused} refused`);
    assertNoErrorLogged();
  });

  /** The answer the model gives for a request target as the server received it. */
  function expectedAnswer(target: string): Expected {
    const end = target.search(/[?#]/);
    const segment = (end === -1 ? target : target.slice(0, end)).slice(1);
    if (segment.includes('/')) {
      // The router matches the path percent-decoded: /%64ocs/ is /docs/.
      let route = segment;
      try {
        route = decodeURIComponent(segment);
      } catch {
        // Left as it came: the router cannot decode it either.
      }
      return route.startsWith('docs/') || route.startsWith('app/') || /^links\/[^/]+\/qr$/.test(route)
        ? { kind: 'served' }
        : { kind: 'client-error' };
    }
    let name: string;
    try {
      // The router decodes a path parameter once; bad percent-encoding cannot name a link.
      name = decodeURIComponent(segment);
    } catch {
      return { kind: 'error', status: 404, code: 'LINK_NOT_FOUND' };
    }
    // The root goes to the dashboard (ROOT_REDIRECT's default).
    if (name === '') return { kind: 'redirect', location: '/app/' };
    if (routes.has(name)) return { kind: 'route', status: ROUTE_STATUS[name] ?? 200 };
    const link = links.get(name);
    if (link === undefined) return { kind: 'error', status: 404, code: 'LINK_NOT_FOUND' };
    if (link.kind === 'gone') return { kind: 'error', status: 410, code: link.code };
    return { kind: 'redirect', location: link.url };
  }

  /** The answers the model predicted and the app gave, so that a run can show it met each kind. */
  const seen = new Set<number>();
  const assertEveryAnswerSeen = () =>
    assert.deepEqual(
      [302, 404, 410].filter((status) => !seen.has(status)),
      [],
      'each of 302, 404 and 410 was answered',
    );

  function assertAnswer(method: string, target: string, answer: Answer): void {
    const expected = expectedAnswer(target);
    seen.add(answer.status);
    const what = `${method} ${JSON.stringify(target)} → ${answer.status} ${answer.body.slice(0, 200)}`;
    switch (expected.kind) {
      case 'redirect':
        assert.equal(answer.status, 302, what);
        assert.equal(answer.location, expected.location, what);
        validateHeaderValue('location', answer.location);
        return;
      case 'error':
        assert.equal(answer.status, expected.status, what);
        if (method === 'GET') assert.equal(errorCodeOf(answer.body), expected.code, what);
        return;
      case 'route':
        assert.equal(answer.status, expected.status, what);
        return;
      case 'client-error':
        assert.ok(answer.status >= 400 && answer.status < 500, what);
        if (method === 'GET') assertErrorAnswer(answer.status, answer.body);
        return;
      case 'served':
        assert.ok(answer.status < 500, what);
        if (method === 'GET' && answer.status >= 400) assertErrorAnswer(answer.status, answer.body);
    }
  }

  /** Paths of every shape, up to `longest` characters, with the codes that exist when the property runs. */
  function anyPath(longest: number): fc.Arbitrary<string> {
    // Every known code, and more often the few that answer 410 or name a route.
    const code = fc.oneof(
      fc.constantFrom(...links.keys()),
      fc.constantFrom('Gone-exp', 'Gone-off', 'Abc-1', ...routes, 'links', 'LINKS', 'Healthz'),
    );
    const codeChar = fc.constantFrom(...CODE_ALPHABET);
    const hex = (c: string) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
    const encodeAt = (c: string, at: number) => c.slice(0, at % c.length) + hex(c.charAt(at % c.length)) + c.slice((at % c.length) + 1);
    // Small edits of a real code: most make another (absent) code, some spell the same one.
    const mutated = fc.tuple(code, fc.nat(), codeChar, fc.nat(9)).map(([c, at, other, how]) => {
      const i = at % c.length;
      const ch = c.charAt(i);
      const edits = [
        c,
        c.slice(0, i) + (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase()) + c.slice(i + 1),
        c.slice(0, i) + other + c.slice(i + 1),
        c.slice(0, i) + c.slice(i + 1),
        c.slice(0, i) + other + c.slice(i),
        c.slice(0, i) + hex(ch) + c.slice(i + 1),
        c.slice(0, i) + hex(ch).toUpperCase() + c.slice(i + 1),
        c.slice(0, i) + `%25${hex(ch).slice(1)}` + c.slice(i + 1),
        c.slice(0, i) + encodeURIComponent(String.fromCodePoint(0xff21 + (ch.charCodeAt(0) & 31))) + c.slice(i + 1),
        c.repeat(2),
      ];
      return edits[how] ?? c;
    });
    const suffix = fc.constantFrom(
      '',
      '',
      '',
      '?',
      '?x=1',
      '?a=/b/../c',
      '#f',
      '/',
      '//',
      ';x',
      '.',
      '%20',
      '%2F',
      '/x',
      '%3F',
      '%23',
      '%',
      '%2',
      '&',
    );
    const prefix = fc.constantFrom('', '', '', '', '/', '.', './', '../', '%2F', '%2E');
    const segment = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.string({ unit: codeChar, maxLength: 12 }));
    // The exact code, as clients send it: plain, percent-encoded, with a query or a fragment.
    const exact = fc
      .tuple(code, fc.nat(), fc.boolean(), fc.constantFrom('', '', '?', '?utm=1&x=/y', '#top', '?#'))
      .map(([c, at, encode, tail]) => (encode ? encodeAt(c, at) : c) + tail);
    // Past the router's longest parameter (16 KiB) when `longest` allows.
    const long = fc
      .tuple(code, fc.integer({ min: 1, max: longest }), fc.constantFrom('a', '%41', '-'))
      .map(([c, n, filler]) => c + filler.repeat(Math.ceil(n / filler.length)));
    return fc.oneof(
      { arbitrary: exact.map((p) => `/${p}`), weight: 3 },
      { arbitrary: fc.tuple(prefix, mutated, suffix).map(([p, c, s]) => `/${p}${c}${s}`), weight: 4 },
      { arbitrary: fc.string({ unit: codeChar, maxLength: 70 }).map((s) => `/${s}`), weight: 2 },
      { arbitrary: fc.string({ unit: 'binary', maxLength: 80 }).map((s) => `/${s}`), weight: 2 },
      { arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => `/${encodeURIComponent(s)}`), weight: 1 },
      { arbitrary: fc.array(segment, { minLength: 2, maxLength: 4 }).map((parts) => `/${parts.join('/')}`), weight: 1 },
      { arbitrary: fc.string({ unit: 'binary', maxLength: 3000, size: 'large' }).map((s) => `/${s}`), weight: 1 },
      { arbitrary: long.map((s) => `/${s}`), weight: 1 },
    );
  }

  test("GET and HEAD of any path through app.inject(): the model's 302, 410 or 404, or a 4xx for other shapes; never a 5xx", async () => {
    seen.clear();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<'GET' | 'HEAD'>('GET', 'HEAD'), anyPath(20_000), async (method, path) => {
        // light-my-request parses the path as new URL(path, 'http://localhost') (a leading // as part
        // of the path); a few strings are no URL at all, and cannot be injected.
        fc.pre(path.startsWith('//') ? URL.canParse(`http://localhost${path}`) : URL.canParse(path, 'http://localhost'));
        const res = await app.inject({ method, url: path });
        // The target the app received: light-my-request normalises the path (dot segments, \, #).
        const target = res.raw.req.url ?? '';
        assertAnswer(method, target, { status: res.statusCode, location: res.headers.location, body: res.body });
      }),
      { numRuns: 600 },
    );
    assertEveryAnswerSeen();
    assertNoErrorLogged();
  });

  test('GET and HEAD of any path over a socket, through the redirect listener: the same answers, and 400 for bytes HTTP does not allow in a path', async () => {
    seen.clear();
    await fc.assert(
      // Paths stay under Node's 16 KiB limit on a request's head, which is answered 431 instead.
      fc.asyncProperty(fc.constantFrom('GET', 'HEAD'), anyPath(12_000), async (method, path) => {
        const bytes = Buffer.from(path, 'utf8');
        const answer = await rawRequest(port, method, bytes);
        // HTTP/1.1's request-target is visible ASCII; Node's parser refuses any other byte.
        if (bytes.some((b) => b < 0x21 || b > 0x7e)) {
          assertErrorAnswer(answer.status, answer.body);
          assert.equal(answer.status, 400, `${method} ${JSON.stringify(path)}`);
          return;
        }
        assertAnswer(method, path, answer);
      }),
      { numRuns: 400 },
    );
    assertEveryAnswerSeen();
    assertNoErrorLogged();
  });
});

// ---------------------------------------------------------------------------------------------

function assertErrorAnswer(status: number, body: string): void {
  const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
  const code = parsed.error?.code;
  assert.ok(isErrorCode(code), `unknown error code in ${body}`);
  assert.equal(ERRORS[code].status, status, body);
  assert.ok(typeof parsed.error?.message === 'string' && parsed.error.message.length > 0, body);
}

function errorCodeOf(body: string): unknown {
  return (JSON.parse(body) as { error?: { code?: unknown } }).error?.code;
}

async function listenPort(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  assert.ok(address !== null && typeof address === 'object');
  return address.port;
}

/** One request written byte for byte: fetch() and http.request() refuse or re-encode odd paths. */
async function rawRequest(port: number, method: string, target: Buffer): Promise<Answer> {
  const text = await rawExchange(
    port,
    Buffer.concat([Buffer.from(`${method} `), target, Buffer.from(' HTTP/1.1\r\nhost: sho.rt\r\nconnection: close\r\n\r\n')]),
  );
  const response = parseResponse(text, method === 'HEAD');
  assert.ok(response !== undefined, `no complete response: ${JSON.stringify(text.slice(0, 200))}`);
  return { status: response.status, location: response.headers.get('location'), body: response.body };
}
