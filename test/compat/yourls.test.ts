// YOURLS's documented HTTP calls (yourls.org/docs/guide/advanced/passwordless-api, YOURLS's
// sample-remote-api-call.txt) made with plain fetch against the service's /yourls-api.php
// (src/compat/yourls-routes.ts), over a real socket: GET with the query, POST as a form and as
// PHP's curl sends an array (multipart); shorturl, expand, url-stats after a real click, stats,
// db-stats and version, in json, xml, simple and jsonp; and what a missing or wrong signature, a
// viewer, another workspace and bad input get, in YOURLS's shapes and statuses. (YOURLS has no
// official npm client.)

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { startApp } from '../helpers/app.ts';
import { DESKTOP_UA } from '../helpers/agents.ts';
import { createThroughOurApi, servedApp } from '../helpers/compat.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { keysWith, workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('compat_yourls');
});
after(() => database.drop());

/** A parsed answer (JSON, or XML as nested objects). */
type Tree = Record<string, unknown>;

/** The value at a dotted path of an answer ("links.link_1.url"); undefined where there is none. */
function pick(tree: unknown, path: string): unknown {
  let value = tree;
  for (const name of path.split('.')) value = value !== null && typeof value === 'object' ? (value as Tree)[name] : undefined;
  return value;
}

/** The string at a path: an assertion fails if it is anything else. */
function text(tree: unknown, path: string): string {
  const value = pick(tree, path);
  assert.equal(typeof value, 'string', `${path} is a string`);
  return value as string;
}

interface Answer {
  status: number;
  type: string | null;
  text: string;
}

/** The service on a port of its own, and YOURLS's calls to its /yourls-api.php. */
async function serve(t: Parameters<typeof startApp>[0], env: Record<string, string> = {}) {
  const { app, base } = await servedApp(t, database.url, env);
  const api = `${base}/yourls-api.php`;
  const answer = async (response: Response): Promise<Answer> => ({
    status: response.status,
    type: response.headers.get('content-type'),
    text: await response.text(),
  });
  /** GET yourls-api.php?…, as the docs show. */
  const get = async (params: Record<string, string>) => answer(await fetch(`${api}?${new URLSearchParams(params).toString()}`));
  /** POST as a form (application/x-www-form-urlencoded). */
  const post = async (params: Record<string, string>) => answer(await fetch(api, { method: 'POST', body: new URLSearchParams(params) }));
  /** POST as PHP's curl sends an array of fields (multipart/form-data), as YOURLS's sample-remote-api-call.txt. */
  const postMultipart = async (params: Record<string, string>) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(params)) form.append(name, value);
    return answer(await fetch(api, { method: 'POST', body: form }));
  };
  const json = async (call: Promise<Answer>) => {
    const got = await call;
    assert.match(got.type ?? '', /^application\/json/, got.text);
    return { status: got.status, body: JSON.parse(got.text) as Tree };
  };
  return { app, base, get, post, postMultipart, json };
}

/** The elements of YOURLS's XML (elements and text only, as its writer makes), as nested objects. */
function parseXml(xml: string): Tree {
  assert.ok(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<root'), xml);
  const tokens = xml.slice(xml.indexOf('\n') + 1).match(/<[^>]+>|[^<]+/g) ?? [];
  type Node = { [name: string]: Node | string };
  const stack: { name: string; value: Node | string }[] = [{ name: '', value: {} }];
  const decode = (escaped: string) => escaped.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
  for (const token of tokens) {
    if (token.trim() === '') continue;
    const top = stack.at(-1)!;
    if (token.endsWith('/>')) (top.value as Node)[token.slice(1, -2)] = '';
    else if (token.startsWith('</')) {
      const done = stack.pop()!;
      (stack.at(-1)!.value as Node)[done.name] = done.value;
    } else if (token.startsWith('<')) stack.push({ name: token.slice(1, -1), value: {} });
    else top.value = decode(token);
  }
  return pick(stack[0]!.value, 'root') as Tree;
}

test("YOURLS's documented calls create, expand, read the stats of and count links, with one of our keys as the signature", async (t) => {
  const { app, base, get, post, postMultipart, json } = await serve(t);
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const signature = admin.secret;

  // POST, a form, format=json: YOURLS's create answer, field for field.
  const made = await json(
    post({ signature, action: 'shorturl', url: 'https://example.com/spring', keyword: 'yourls-spring', title: 'Spring', format: 'json' }),
  );
  assert.equal(made.status, 200);
  const date = text(made.body, 'url.date');
  assert.match(date, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  assert.deepEqual(made.body, {
    status: 'success',
    code: '',
    message: 'https://example.com/spring added to database',
    errorCode: '',
    statusCode: '200',
    url: { keyword: 'yourls-spring', url: 'https://example.com/spring', title: 'Spring', date, ip: '' },
    title: 'Spring',
    shorturl: `${base}/yourls-spring`,
  });
  assert.equal((await fetch(`${base}/yourls-spring`, { redirect: 'manual' })).headers.get('location'), 'https://example.com/spring');

  // GET with username and password, format=simple: the short URL as text; no scheme is http://, no title is the URL.
  const simple = await get({ username: 'admin', password: signature, action: 'shorturl', url: 'example.org/bare', format: 'simple' });
  assert.equal(simple.status, 200);
  assert.match(simple.type ?? '', /^text\/plain/);
  assert.match(simple.text, new RegExp(`^${base}/[A-Za-z0-9]+$`));
  const bareCode = simple.text.slice(base.length + 1);
  // Multipart, as PHP's curl posts an array; no format: YOURLS's default, xml.
  const xmlMade = await postMultipart({ signature, action: 'shorturl', url: 'https://example.com/a?b=1&c=<2>', keyword: 'yourls-xml' });
  assert.equal(xmlMade.status, 200);
  assert.match(xmlMade.type ?? '', /^application\/xml/);
  const xml = parseXml(xmlMade.text);
  assert.equal(xml.status, 'success');
  assert.equal(xml.code, '');
  assert.equal(xml.statusCode, '200');
  assert.equal(pick(xml, 'url.keyword'), 'yourls-xml');
  assert.equal(pick(xml, 'url.url'), 'https://example.com/a?b=1&c=%3C2%3E');
  assert.equal(xml.shorturl, `${base}/yourls-xml`);

  // expand: by keyword, by full short URL, in each format.
  const expanded = await json(get({ signature, action: 'expand', shorturl: 'yourls-spring', format: 'json' }));
  assert.deepEqual(expanded, {
    status: 200,
    body: {
      keyword: 'yourls-spring',
      shorturl: `${base}/yourls-spring`,
      longurl: 'https://example.com/spring',
      title: 'Spring',
      message: 'success',
      statusCode: '200',
    },
  });
  const byUrl = parseXml((await get({ signature, action: 'expand', shorturl: `${base}/yourls-spring`, format: 'xml' })).text);
  assert.equal(byUrl.longurl, 'https://example.com/spring');
  assert.equal((await get({ signature, action: 'expand', shorturl: bareCode, format: 'simple' })).text, 'http://example.org/bare');
  const jsonp = await get({ signature, action: 'expand', shorturl: 'yourls-spring', format: 'jsonp', callback: 'yourls.got' });
  assert.match(jsonp.type ?? '', /^application\/javascript/);
  assert.match(jsonp.text, /^yourls\.got\(\{"keyword":"yourls-spring",.*"callback":"yourls\.got"\}\)$/);
  assert.match(jsonp.text, /"shorturl":"http:\\\/\\\/127\.0\.0\.1/, 'json_encode escapes slashes');

  // A real click, once written, in url-stats.
  const followed = await fetch(`${base}/yourls-spring`, { redirect: 'manual', headers: { 'user-agent': DESKTOP_UA } });
  assert.equal(followed.status, 302);
  await app.clicks.flush();
  const linkStats = await json(post({ signature, action: 'url-stats', shorturl: 'yourls-spring', format: 'json' }));
  assert.deepEqual(linkStats, {
    status: 200,
    body: {
      statusCode: '200',
      message: 'success',
      link: { shorturl: `${base}/yourls-spring`, url: 'https://example.com/spring', title: 'Spring', timestamp: date, ip: '', clicks: 1 },
    },
  });
  const statsXml = parseXml((await get({ signature, action: 'url-stats', shorturl: `${base}/yourls-spring` })).text);
  assert.equal(pick(statsXml, 'link.clicks'), '1');
  assert.equal(
    (await get({ signature, action: 'url-stats', shorturl: 'yourls-spring', format: 'simple' })).text,
    'Need either XML or JSON format for stats',
  );

  // stats: top is the most clicked first, last the newest first; start walks on; no limit lists none (YOURLS's intval('')).
  const top = await json(get({ signature, action: 'stats', filter: 'top', limit: '2', format: 'json' }));
  assert.equal(top.status, 200);
  assert.equal(pick(top.body, 'links.link_1.shorturl'), `${base}/yourls-spring`);
  assert.equal(pick(top.body, 'links.link_1.clicks'), 1);
  assert.equal(Object.keys(pick(top.body, 'links') as Tree).length, 2);
  assert.deepEqual(top.body.stats, { total_links: 3, total_clicks: 1 });
  assert.deepEqual([top.body.statusCode, top.body.message], ['200', 'success']);
  const last = await json(get({ signature, action: 'stats', filter: 'last', limit: '3', format: 'json' }));
  assert.deepEqual(
    Object.values(pick(last.body, 'links') as Tree).map((link) => pick(link, 'shorturl')),
    [`${base}/yourls-xml`, `${base}/${bareCode}`, `${base}/yourls-spring`],
  );
  const second = await json(get({ signature, action: 'stats', filter: 'last', limit: '1', start: '1', format: 'json' }));
  assert.deepEqual(Object.keys(pick(second.body, 'links') as Tree), ['link_1']);
  assert.equal(pick(second.body, 'links.link_1.shorturl'), `${base}/${bareCode}`);
  const none = await json(get({ signature, action: 'stats', format: 'json' }));
  assert.equal(none.body.links, undefined);
  assert.deepEqual(none.body.stats, { total_links: 3, total_clicks: 1 });
  const topXml = parseXml((await get({ signature, action: 'stats', filter: 'top', limit: '1' })).text);
  assert.equal(pick(topXml, 'links.link_1.url'), 'https://example.com/spring');

  // db-stats and version.
  assert.deepEqual(await json(get({ signature, action: 'db-stats', format: 'json' })), {
    status: 200,
    body: { 'db-stats': { total_links: 3, total_clicks: 1 }, statusCode: '200', message: 'success' },
  });
  assert.deepEqual(parseXml((await post({ signature, action: 'db-stats' })).text)['db-stats'], { total_links: '3', total_clicks: '1' });
  assert.equal((await get({ signature, action: 'version', format: 'simple' })).text, '1.10.4');
});

test('YOURLS clients get our rules, roles and workspaces in YOURLS’s error shapes and statuses', async (t) => {
  const { base, get, post, json } = await serve(t);
  const { admin, viewer } = await keysWith(database.url, { admin: 'admin', viewer: 'viewer' });
  const signature = admin.secret;
  await json(post({ signature, action: 'shorturl', url: 'https://example.com/taken', keyword: 'yourls-taken', format: 'json' }));

  // Credentials: YOURLS's 403, its message, the callback echoed; our stable code beside.
  assert.deepEqual(await json(get({ action: 'db-stats', format: 'json' })), {
    status: 403,
    body: { message: 'Please log in', errorCode: '403', callback: '', stableCode: 'API_KEY_REQUIRED' },
  });
  assert.deepEqual(await json(get({ signature: 'sk_live_not_a_key', action: 'db-stats', format: 'json' })), {
    status: 403,
    body: { message: 'Please log in', errorCode: '403', callback: '', stableCode: 'API_KEY_INVALID' },
  });
  const wrongPassword = await json(
    post({ username: 'admin', password: `${signature}x`, action: 'expand', shorturl: 'yourls-taken', format: 'json' }),
  );
  assert.deepEqual([wrongPassword.status, wrongPassword.body.message], [403, 'Invalid username or password']);
  const timed = await json(
    get({ timestamp: '1700000000', signature: 'ed8d12124fc7916b00e3ecd7dc2c1d6a', action: 'db-stats', format: 'json' }),
  );
  assert.equal(timed.status, 403);
  assert.equal(timed.body.stableCode, 'API_KEY_INVALID');
  assert.match(text(timed.body, 'message'), /Time-limited signatures/);
  const xmlRefusal = await get({ action: 'stats' });
  assert.equal(xmlRefusal.status, 403);
  assert.deepEqual(parseXml(xmlRefusal.text), { message: 'Please log in', errorCode: '403', callback: '', stableCode: 'API_KEY_REQUIRED' });
  assert.equal((await get({ action: 'stats', format: 'simple' })).text, 'Please log in');

  // Bad input: YOURLS's create failure, its `code`, its 400.
  assert.deepEqual(await json(post({ signature, action: 'shorturl', url: '', format: 'json' })), {
    status: 400,
    body: {
      status: 'fail',
      code: 'error:nourl',
      message: 'Missing or malformed URL',
      errorCode: '400',
      statusCode: '400',
      stableCode: 'URL_INVALID',
    },
  });
  const taken = await json(
    post({ signature, action: 'shorturl', url: 'https://example.com/other', keyword: 'yourls-taken', format: 'json' }),
  );
  assert.equal(taken.status, 400);
  assert.deepEqual(
    [taken.body.status, taken.body.code, taken.body.message, taken.body.statusCode, taken.body.stableCode],
    ['fail', 'error:keyword', 'Short URL yourls-taken already exists in database or is reserved', '400', 'ALIAS_TAKEN'],
  );
  const badKeyword = await json(
    post({ signature, action: 'shorturl', url: 'https://example.com/x', keyword: 'no spaces!', format: 'json' }),
  );
  assert.deepEqual([badKeyword.status, badKeyword.body.code, badKeyword.body.stableCode], [400, 'error:keyword', 'ALIAS_INVALID']);
  // Our target policy, whatever the adapter.
  const privateTarget = await json(post({ signature, action: 'shorturl', url: 'http://10.0.0.1/admin', format: 'json' }));
  assert.deepEqual(
    [privateTarget.status, privateTarget.body.code, privateTarget.body.stableCode],
    [400, 'error:nourl', 'URL_PRIVATE_ADDRESS'],
  );
  const selfLoop = await json(post({ signature, action: 'shorturl', url: `${base}/yourls-taken`, format: 'json' }));
  assert.deepEqual([selfLoop.status, selfLoop.body.code], [400, 'error:noloop']);
  const bottom = await json(get({ signature, action: 'stats', filter: 'bottom', limit: '5', format: 'json' }));
  assert.deepEqual([bottom.status, bottom.body.errorCode, bottom.body.stableCode], [400, '400', 'LIST_QUERY_INVALID']);
  const badLimit = await json(get({ signature, action: 'stats', filter: 'top', limit: 'lots', format: 'json' }));
  assert.deepEqual([badLimit.status, badLimit.body.stableCode], [400, 'LIST_QUERY_INVALID']);
  assert.deepEqual(await json(get({ signature, action: 'nothing', format: 'json' })), {
    status: 400,
    body: { errorCode: '400', message: 'Unknown or missing "action" parameter', stableCode: 'BAD_REQUEST' },
  });
  assert.deepEqual(await json(get({ signature, action: 'expand', shorturl: 'yourls-nowhere', format: 'json' })), {
    status: 404,
    body: { keyword: 'yourls-nowhere', message: 'Error: short URL not found', errorCode: '404', stableCode: 'LINK_NOT_FOUND' },
  });
  assert.deepEqual(await json(get({ signature, action: 'url-stats', shorturl: 'yourls-nowhere', format: 'json' })), {
    status: 404,
    body: { statusCode: '404', message: 'Error: short URL not found', stableCode: 'LINK_NOT_FOUND' },
  });
  const badCallback = await get({ signature, action: 'version', format: 'jsonp', callback: 'alert(1)' });
  assert.deepEqual([badCallback.status, badCallback.text], [400, '{"errorCode":"400","error":"Invalid callback parameter"}']);
  // A body YOURLS would not send: its shape, never a 500.
  const jsonBody = await fetch(`${base}/yourls-api.php?format=json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ action: 'shorturl', signature }),
  });
  assert.deepEqual([jsonBody.status, pick(await jsonBody.json(), 'stableCode')], [415, 'UNSUPPORTED_MEDIA_TYPE']);

  // A viewer reads and may not create.
  const viewerCreate = await json(
    post({ signature: viewer.secret, action: 'shorturl', url: 'https://example.com/viewer', format: 'json' }),
  );
  assert.deepEqual(
    [viewerCreate.status, viewerCreate.body.status, viewerCreate.body.errorCode, viewerCreate.body.stableCode],
    [403, 'fail', '403', 'ROLE_FORBIDDEN'],
  );
  assert.equal(
    (await get({ signature: viewer.secret, action: 'expand', shorturl: 'yourls-taken', format: 'simple' })).text,
    'https://example.com/taken',
  );

  // Another workspace's key sees nothing of it.
  const other = await workspaceWith(database.url, 'yourls-other', { admin: 'admin' });
  const elsewhere = other.keys.admin.secret;
  const foreign = await json(get({ signature: elsewhere, action: 'expand', shorturl: `${base}/yourls-taken`, format: 'json' }));
  assert.deepEqual([foreign.status, foreign.body.stableCode], [404, 'LINK_NOT_FOUND']);
  assert.equal((await json(get({ signature: elsewhere, action: 'url-stats', shorturl: 'yourls-taken', format: 'json' }))).status, 404);
  const otherStats = await json(get({ signature: elsewhere, action: 'stats', filter: 'last', limit: '10', format: 'json' }));
  assert.deepEqual([otherStats.body.links, otherStats.body.stats], [undefined, { total_links: 0, total_clicks: 0 }]);
  const ownStats = await json(get({ signature, action: 'stats', filter: 'last', limit: '10', format: 'json' }));
  assert.ok(Object.keys(pick(ownStats.body, 'links') as Tree).length >= 1, 'the first workspace lists its links');
});

test('a YOURLS shorturl without credentials follows CREATE_REQUIRES_API_KEY, and shares the create limit with POST /links', async (t) => {
  const { base, get, json } = await serve(t, {
    CREATE_REQUIRES_API_KEY: 'true',
    RATE_LIMIT_ENABLED: 'true',
    RATE_LIMIT_CREATES_PER_KEY: '3',
  });
  const { member } = await keysWith(database.url, { member: 'member' });
  const anonymous = await json(get({ action: 'shorturl', url: 'https://example.com/anonymous', format: 'json' }));
  assert.deepEqual(anonymous, {
    status: 403,
    body: { message: 'Please log in', errorCode: '403', callback: '', stableCode: 'API_KEY_REQUIRED' },
  });
  const ours = (i: number) => createThroughOurApi(base, member.secret, `https://example.com/limit/${i}`);
  assert.equal((await ours(1)).status, 201);
  assert.equal((await ours(2)).status, 201);
  // Reads are no creates: they spend nothing of the limit.
  for (let i = 0; i < 3; i++) assert.equal((await get({ signature: member.secret, action: 'db-stats', format: 'json' })).status, 200);
  const third = await json(get({ signature: member.secret, action: 'shorturl', url: 'https://example.com/limit/3', format: 'json' }));
  assert.equal(third.status, 200);
  const fourth = await json(get({ signature: member.secret, action: 'shorturl', url: 'https://example.com/limit/4', format: 'json' }));
  assert.deepEqual(
    [fourth.status, fourth.body.status, fourth.body.errorCode, fourth.body.stableCode],
    [429, 'fail', '429', 'RATE_LIMITED'],
  );
  assert.equal((await ours(5)).status, 429);
});

test('guessed YOURLS signatures spend the address’s budget of key look-ups, as guessed headers do', async (t) => {
  const { get, json } = await serve(t, { CREDENTIAL_LOOKUPS_PER_MINUTE: '3' });
  const guess = (i: number) => `sk_${String(i).padStart(43, 'x')}`;
  for (let i = 0; i < 3; i++) {
    const wrong = await json(get({ signature: guess(i), action: 'db-stats', format: 'json' }));
    assert.deepEqual([wrong.status, wrong.body.stableCode], [403, 'API_KEY_INVALID']);
  }
  const limited = await get({ signature: guess(3), action: 'db-stats', format: 'json' });
  assert.equal(limited.status, 429);
  assert.deepEqual(pick(JSON.parse(limited.text), 'stableCode'), 'CREDENTIALS_RATE_LIMITED');
  assert.equal(pick(JSON.parse(limited.text), 'errorCode'), '429');
});
