// The link builder's pure parts (web/src/links/builder): how a typed target is read, what the browser
// refuses before sending, which field an API error lands on and in which words, what each closed
// section says. The API's error bodies here are real: the links schema and the service's error
// handler answering a Fastify instance (no database), as POST /links answers them.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerErrorHandlers } from '../../src/api/errors.ts';
import { CreateLinkBody } from '../../src/links/schemas.ts';
import { AppError } from '../../src/errors.ts';
import { ApiError } from '../../web/src/api/errors.ts';
import { checkLink, WORDS } from '../../web/src/links/builder/checks.ts';
import { errorField, errorWords } from '../../web/src/links/builder/error-words.ts';
import { controlOf, sectionOf } from '../../web/src/links/builder/fields.ts';
import { normaliseUrl } from '../../web/src/links/builder/normalise-url.ts';
import { sectionSummary, sectionUsed } from '../../web/src/links/builder/summaries.ts';
import type { LinkFormValues } from '../../web/src/links/builder/values.ts';
import { emptyRule, NO_OPTIONS } from '../../web/src/links/options/draft.ts';

const EMPTY: LinkFormValues = { url: '', domain: '', alias: '', startsAt: '', expiresAt: '', title: '', tags: '', options: NO_OPTIONS };
const link = (change: Partial<LinkFormValues>, options: Partial<typeof NO_OPTIONS> = {}): LinkFormValues => ({
  ...EMPTY,
  url: 'https://example.com/',
  ...change,
  options: { ...NO_OPTIONS, ...options },
});
const NOW = Date.parse('2030-01-01T00:00:00Z');
const fields = (values: LinkFormValues, mode: 'create' | 'edit' = 'create') => checkLink(values, mode, NOW).map((p) => p.field);

describe('the target as typed', () => {
  test('an address without a scheme is read as https, and says so; anything else is left for the checks', () => {
    assert.deepEqual(normaliseUrl(' example.com/page '), { url: 'https://example.com/page', assumed: true });
    assert.deepEqual(normaliseUrl('shop.example.co.uk:8443/a?b=c'), { url: 'https://shop.example.co.uk:8443/a?b=c', assumed: true });
    assert.deepEqual(normaliseUrl('localhost:3000'), { url: 'https://localhost:3000', assumed: true });
    assert.deepEqual(normaliseUrl('//cdn.example/x'), { url: 'https://cdn.example/x', assumed: true });
    assert.deepEqual(normaliseUrl('http://example.com'), { url: 'http://example.com', assumed: false });
    assert.deepEqual(normaliseUrl('javascript:alert(1)'), { url: 'javascript:alert(1)', assumed: false });
    assert.deepEqual(normaliseUrl('mailto:a@example.com'), { url: 'mailto:a@example.com', assumed: false });
    assert.deepEqual(normaliseUrl('just words'), { url: 'just words', assumed: false });
  });
});

describe('checks before sending', () => {
  test('a plain link passes; a bare host is a target; other schemes and empty targets are not', () => {
    assert.deepEqual(fields(link({})), []);
    assert.deepEqual(fields(link({ url: 'example.com/page' })), []);
    assert.deepEqual(fields(link({ url: '' })), ['url']);
    assert.deepEqual(fields(link({ url: 'javascript:alert(1)' })), ['url']);
    assert.deepEqual(fields(link({ url: `https://example.com/${'a'.repeat(2048)}` })), ['url']);
  });

  test('an alias by the server’s shape (3–64 of A-Z a-z 0-9 _ -), checked only when creating', () => {
    assert.deepEqual(fields(link({ alias: 'spring_sale-2030' })), []);
    const [short] = checkLink(link({ alias: 'ab' }), 'create', NOW);
    assert.match(short?.message ?? '', /3 to 64 characters/);
    const [signs] = checkLink(link({ alias: 'has space' }), 'create', NOW);
    assert.match(signs?.message ?? '', /letters, digits, - and _/);
    assert.deepEqual(fields(link({ alias: 'x'.repeat(65) })), ['alias']);
    assert.deepEqual(fields(link({ alias: 'ab' }), 'edit'), []);
  });

  test('a click limit is a whole number from 1 to 1,000,000,000', () => {
    for (const good of ['1', '100', '1000000000', ' 42 ']) assert.deepEqual(fields(link({}, { clickLimit: good })), [], good);
    for (const bad of ['0', '12.5', '-3', '1e3', 'ten', '1000000001']) {
      const problems = checkLink(link({}, { clickLimit: bad }), 'create', NOW);
      assert.deepEqual(
        problems.map((p) => p.field),
        ['options.clickLimit'],
        bad,
      );
      assert.doesNotMatch(problems[0]?.message ?? '', /clickLimit|null|true/, 'in people’s words');
    }
  });

  test('dates: a past expiry (unless left as it was), a start after the expiry, a time that is none', () => {
    assert.deepEqual(fields(link({ expiresAt: '2029-12-01T10:00' })), ['expiresAt']);
    assert.deepEqual(
      checkLink(link({ expiresAt: '2029-12-01T10:00' }), 'edit', NOW, link({ expiresAt: '2029-12-01T10:00' })).map((p) => p.field),
      [],
      'an expired link edited keeps its date',
    );
    assert.deepEqual(fields(link({ startsAt: '2031-01-02T00:00', expiresAt: '2031-01-01T00:00' })), ['startsAt']);
    assert.deepEqual(fields(link({ startsAt: '2030-06-01T00:00', expiresAt: '2031-01-01T00:00' })), []);
    assert.deepEqual(fields(link({ expiresAt: 'soon' })), ['expiresAt']);
  });

  test('options: password length, rules with a condition and a URL, weights that add up, app and image addresses', () => {
    assert.deepEqual(fields(link({}, { password: 'short' })), ['options.password']);
    assert.deepEqual(fields(link({}, { rules: [emptyRule()] })), ['options.targets[0].when', 'options.targets[0].url']);
    assert.deepEqual(fields(link({}, { rules: [{ ...emptyRule(), devices: ['ios'], url: 'https://apps.example/' }] })), []);
    const variants = (a: string, b: string) => [
      { url: 'https://example.com/a', weight: a },
      { url: 'https://example.com/b', weight: b },
    ];
    assert.deepEqual(fields(link({}, { variants: variants('30', '70') })), []);
    assert.deepEqual(fields(link({}, { variants: variants('30', '60') })), ['options.split']);
    assert.deepEqual(fields(link({}, { variants: variants('0', '100') })), ['options.split[0].weight', 'options.split[1].weight']);
    assert.deepEqual(fields(link({}, { previewImage: 'cdn.example/a.png', appIos: 'myapp://open', appAndroid: 'not an app' })), [
      'options.preview.image',
      'options.deepLink.android',
    ]);
    assert.deepEqual(fields(link({ tags: Array.from({ length: 11 }, (_, i) => `t${i}`).join(',') })), ['tags']);
  });
});

/** What the route throws after the schema let the body through (a coded error), if anything. */
let failWith: AppError | undefined;
let server: FastifyInstance | undefined;

/** The error answer POST /links gives for `body`: the links schema and the service's error handler (app.ts's Ajv options). */
async function answer(body: unknown, fail?: AppError): Promise<ApiError> {
  if (server === undefined) {
    server = Fastify({ ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false } } });
    registerErrorHandlers(server);
    server.post('/links', { schema: { body: CreateLinkBody } }, async () => {
      if (failWith !== undefined) throw failWith;
      return {};
    });
  }
  failWith = fail;
  const res = await server.inject({ method: 'POST', url: '/links', payload: body as object });
  const { error } = res.json<{ error: { code: string; message: string; field?: string } }>();
  return new ApiError(res.statusCode, error.code as never, error.message, null, error.field ?? null);
}

after(() => server?.close());

describe('the API’s errors, on their fields, in people’s words', () => {
  test('a schema error names its field in the message only: body.options.clickLimit lands on the click limit', async () => {
    const error = await answer({ url: 'https://example.com/', options: { clickLimit: 12.5 } });
    assert.equal(error.code, 'BODY_INVALID');
    assert.match(error.message, /^body\.options\.clickLimit must be integer/);
    assert.equal(errorField(error), 'options.clickLimit');
    assert.equal(controlOf('link-create', 'options.clickLimit'), 'link-create-opt-limit');
    assert.equal(sectionOf('link-create', 'link-create-opt-limit'), 'protection');
    assert.match(errorWords(error, 'options.clickLimit'), /^Enter a whole number of clicks/);
  });

  test('a nested path with list indexes is read as the API’s other errors name it', async () => {
    const error = await answer({
      url: 'https://example.com/',
      options: {
        targets: [
          { when: {}, url: 'https://a.example/' },
          { when: {}, url: 7 },
        ],
      },
    });
    assert.equal(errorField(error), 'options.targets[1].url');
    assert.equal(controlOf('link-create', 'options.targets[1].url'), 'link-create-opt-targets-1-url');
    assert.equal(sectionOf('link-create', 'link-create-opt-targets-1-url'), 'targeting');
    assert.match(errorWords(error, 'options.targets[1].url'), /^Enter where this rule sends people/);
  });

  test('a start the server refuses (not before the expiry) lands on “Starts”, in its section, in people’s words', async () => {
    const error = await answer(
      { url: 'https://example.com/', startsAt: '2031-01-02T00:00:00Z', expiresAt: '2031-01-01T00:00:00Z' },
      new AppError('STARTS_AT_NOT_BEFORE_EXPIRY', undefined, { field: 'startsAt' }),
    );
    assert.equal(errorField(error), 'startsAt');
    assert.equal(sectionOf('link-create', controlOf('link-create', 'startsAt')), 'schedule');
    assert.equal(errorWords(error, 'startsAt'), WORDS.startAfterExpiry);
  });

  test('coded errors: by their field or their code, never in the API’s names of things', async () => {
    const cases: [AppError, string, RegExp][] = [
      [new AppError('ALIAS_TAKEN'), 'alias', /already taken on this domain/],
      [new AppError('ALIAS_RESERVED'), 'alias', /kept for the service’s own pages/],
      [new AppError('URL_PRIVATE_ADDRESS'), 'url', /private network/],
      [new AppError('EXPIRES_AT_IN_PAST'), 'expiresAt', /in the future/],
      [new AppError('PASSWORD_INVALID', undefined, { field: 'options.password' }), 'options.password', /^A password is 8 to 128/],
      [
        new AppError('TARGET_RULE_INVALID', 'options.targets[1].when.country must hold ISO 3166-1 alpha-2 country codes such as "DE".', {
          field: 'options.targets[1].when.country',
        }),
        'options.targets[1].when.country',
        /^Use two-letter country codes/,
      ],
      [new AppError('CLICK_LIMIT_INVALID', undefined, { field: 'options.clickLimit' }), 'options.clickLimit', /^Enter a whole number/],
    ];
    for (const [fail, field, words] of cases) {
      const error = await answer({ url: 'https://example.com/' }, fail);
      assert.equal(errorField(error), field, fail.code);
      const said = errorWords(error, field);
      assert.match(said, words, fail.code);
      assert.doesNotMatch(said, /expiresAt|clickLimit|options\.|\bnull\b|\btrue\b/, `${fail.code}: ${said}`);
    }
  });
});

describe('what a closed section says', () => {
  const format = (date: Date) => date.toISOString().slice(0, 10);
  test('each section sums up what is set, or that nothing is', () => {
    const plain = link({});
    assert.equal(sectionSummary('protection', plain, format), 'No password, no click limit');
    assert.equal(sectionUsed('protection', plain), false);
    const set = link(
      { expiresAt: '2031-06-01T12:30', startsAt: '2031-05-01T12:30' },
      {
        password: 'correct horse',
        clickLimit: '100',
        rules: [emptyRule(), emptyRule()],
        variants: [
          { url: 'a', weight: '30' },
          { url: 'b', weight: '70' },
        ],
        previewTitle: 'Spring',
        appIos: 'myapp://x',
        redirectStatus: '307',
        forwardQuery: 'false',
      },
    );
    assert.equal(sectionSummary('protection', set, format), 'Password set · limit 100 clicks');
    assert.equal(sectionSummary('schedule', set, format), 'Starts 2031-05-01 · expires 2031-06-01');
    assert.equal(sectionSummary('targeting', set, format), '2 rules · A/B split 30/70');
    assert.equal(sectionSummary('preview', set, format), '“Spring”');
    assert.equal(sectionSummary('apps', set, format), 'iOS');
    assert.equal(sectionSummary('redirect', set, format), '307 Temporary Redirect · query not forwarded');
    assert.equal(sectionSummary('protection', link({}, { hasPassword: true, clickLimit: '1' }), format), 'Password kept · limit 1 click');
    for (const section of ['schedule', 'protection', 'targeting', 'preview', 'apps', 'redirect'] as const)
      assert.ok(sectionUsed(section, set), section);
  });
});
