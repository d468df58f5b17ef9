// YOURLS's API (`/yourls-api.php`), so that scripts, plugins and apps written against a YOURLS
// install work with a base URL and one of our keys. One route, GET or POST, its parameters in the
// query or a form, as YOURLS reads $_REQUEST. The key comes as YOURLS's passwordless `signature`,
// or as the `password` beside any `username`; it is looked up here, not by the API-key hook: a
// GET that creates must never act with the dashboard's session cookie. Each action calls the same
// services as our own routes (creates through the create limits and the write queue, the link
// look-up, the list, the stats) and answers in YOURLS's shapes and formats (yourls-answers.ts,
// yourls-output.ts). Coverage, and what is refused and why: docs/compat.md#yourls.

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorOf } from '../api/errors.ts';
import { keyOfSecret } from '../auth/authenticate.ts';
import type { Credentials } from '../auth/credentials.ts';
import type { Principal } from '../auth/roles.ts';
import { utcDay } from '../core/day-range.ts';
import { AppError, ERRORS } from '../errors.ts';
import { creatorOf } from '../links/create-routes.ts';
import type { CreateLinkBody } from '../links/schemas.ts';
import { LIST_LIMIT_MAX, TOTAL_MAX, type ListSort } from '../links/list-query.ts';
import type { LinkDetails } from '../links/store.ts';
import { peerRoutes, withScheme, type CompatServices } from './adapter.ts';
import { pageAt } from './pages.ts';
import * as answers from './yourls-answers.ts';
import { writeAnswer, type YourlsAnswer } from './yourls-output.ts';
import { acceptFormBodies, paramsOf, type YourlsParams } from './yourls-params.ts';

export interface YourlsDeps extends Pick<CompatServices, 'creates' | 'links' | 'lists' | 'shortUrls' | 'stats' | 'keyRequired'> {
  readonly credentials: Pick<Credentials, 'key'>;
  /** BASE_URL: a full short URL on the default domain starts with it. */
  readonly baseUrl: string;
  /** The create limits of POST /links, run for the shorturl action only; null when they are off. */
  readonly createLimit: ((request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) | null;
}

/** YOURLS's stats filters this service serves, by the list order each is. */
const STATS_ORDERS: Readonly<Record<string, ListSort>> = { top: 'clicks', last: 'created' };
const DAY_MS = 86_400_000;
const PLEASE_LOG_IN = 'Please log in';
const INVALID_LOGIN = 'Invalid username or password';

export async function yourlsRoutes(app: FastifyInstance, deps: YourlsDeps): Promise<void> {
  peerRoutes(app);
  acceptFormBodies(app);
  // What fails before the action runs (a body too large or of another type): YOURLS's shape, in the query's format.
  app.setErrorHandler(function onError(err: FastifyError | AppError, request, reply) {
    const { code, message = ERRORS[code].message } = errorOf(err, request);
    const format = new URLSearchParams(request.url.split('?')[1] ?? '').get('format') ?? 'xml';
    return send(reply, format, answers.failed(code, message));
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/yourls-api.php',
    handler: async (request, reply) => {
      const params = await paramsOf(request.url, request.headers['content-type'], request.body);
      const callback = params.get('callback') ?? params.get('jsonp');
      let answer = await answerOf(params, request, reply, deps);
      if (callback !== undefined && answer.callback === undefined) answer = { ...answer, callback };
      return send(reply, params.get('format') ?? 'xml', answer);
    },
  });
}

function send(reply: FastifyReply, format: string, answer: YourlsAnswer): FastifyReply {
  const written = writeAnswer(format, answer);
  reply
    .code(written.status)
    .header('content-type', `${written.type}; charset=utf-8`)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff');
  if (written.status === 503) reply.header('retry-after', '5');
  return reply.send(written.body);
}

/** The action's answer; a refusal in YOURLS's shape for credentials that are missing or wrong, and for every AppError. */
async function answerOf(params: YourlsParams, request: FastifyRequest, reply: FastifyReply, deps: YourlsDeps): Promise<YourlsAnswer> {
  const action = params.get('action');
  try {
    const key = await keyOf(params, request, reply, deps.credentials);
    request.apiKey = key;
    if (action === 'shorturl') return await shorten(params, request, reply, deps);
    if (key === null) throw new AppError('API_KEY_REQUIRED');
    switch (action) {
      case 'expand':
      case 'url-stats':
        return await linkAnswer(action, params.get('shorturl') ?? '', key, deps);
      case 'stats':
        return await statsAnswer(params, key, deps);
      case 'db-stats':
        return answers.dbStats(await totals(key, deps));
      case 'version':
        return answers.version();
      default:
        return answers.unknownAction();
    }
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    // YOURLS's auth.php answers, its callback echoed (the `callback` parameter only, as there).
    if (err.code === 'API_KEY_REQUIRED') return answers.notAuthenticated(err.code, PLEASE_LOG_IN, params.get('callback') ?? '');
    if (err.code === 'API_KEY_INVALID') return answers.notAuthenticated(err.code, err.message, params.get('callback') ?? '');
    return answers.failed(err.code, err.message);
  }
}

/**
 * The key of YOURLS's credentials: `signature` (the passwordless token), or `password` beside a
 * `username` (any: the secret alone names the key); null for none. A time-limited signature is
 * md5(timestamp + token), and only hashes of our keys are stored: it cannot be checked.
 */
async function keyOf(
  params: YourlsParams,
  request: FastifyRequest,
  reply: FastifyReply,
  credentials: Pick<Credentials, 'key'>,
): Promise<Principal | null> {
  const signature = filled(params.get('signature'));
  const username = filled(params.get('username'));
  const password = filled(params.get('password'));
  if (signature !== undefined && params.has('timestamp'))
    throw new AppError(
      'API_KEY_INVALID',
      'Time-limited signatures (timestamp with signature) cannot be checked here: send signature=<API key> without timestamp.',
    );
  const secret = signature ?? (username !== undefined && password !== undefined ? password : undefined);
  const login = signature === undefined && (params.has('username') || params.has('password'));
  if (secret === undefined) {
    if (login) throw new AppError('API_KEY_INVALID', INVALID_LOGIN);
    return null;
  }
  try {
    return await keyOfSecret(credentials, secret.trim(), request, reply);
  } catch (err) {
    if (err instanceof AppError && err.code === 'API_KEY_INVALID')
      throw new AppError('API_KEY_INVALID', login ? INVALID_LOGIN : PLEASE_LOG_IN);
    throw err;
  }
}

/** action=shorturl: url, keyword (the alias) and title, through our creates; every create makes a new link. */
async function shorten(params: YourlsParams, request: FastifyRequest, reply: FastifyReply, deps: YourlsDeps): Promise<YourlsAnswer> {
  const keyword = params.get('keyword') ?? '';
  try {
    const creator = creatorOf(request, deps.keyRequired);
    if (deps.createLimit !== null) await deps.createLimit(request, reply);
    const { link } = await deps.creates.create(createBody(params, keyword), creator, undefined);
    const shortUrl = deps.shortUrls.of(link).shortUrl;
    return answers.created(answers.shownLink({ ...link, title: link.title ?? null, createdAt: new Date(), clicks: 0 }, shortUrl));
  } catch (err) {
    if (!(err instanceof AppError) || err.code === 'API_KEY_REQUIRED') throw err;
    return answers.createFailed(err.code, err.message, keyword);
  }
}

function createBody(params: YourlsParams, keyword: string): CreateLinkBody {
  const url = (params.get('url') ?? '').trim();
  if (url === '' || url === 'http://' || url === 'https://') throw new AppError('URL_INVALID', 'Missing or malformed URL');
  const title = params.get('title') ?? '';
  return {
    // YOURLS takes a URL without a scheme as http://.
    url: withScheme(url, 'http'),
    ...(keyword === '' ? {} : { alias: keyword }),
    ...(title === '' ? {} : { title }),
  };
}

/** action=expand and action=url-stats: `shorturl` is a keyword, or a full short URL (of the default domain or one of the workspace's). */
async function linkAnswer(action: 'expand' | 'url-stats', shorturl: string, key: Principal, deps: YourlsDeps): Promise<YourlsAnswer> {
  const { host, code } = addressOf(shorturl.trim(), deps.baseUrl);
  let link: LinkDetails;
  try {
    link = await deps.links.find(key, host, code);
  } catch (err) {
    if (!(err instanceof AppError) || (err.code !== 'LINK_NOT_FOUND' && err.code !== 'DOMAIN_NOT_FOUND')) throw err;
    return action === 'expand' ? answers.notExpanded(code) : answers.noUrlStats();
  }
  const shown = answers.shownLink(link, deps.shortUrls.of(link).shortUrl);
  return action === 'expand' ? answers.expanded(shown) : answers.urlStats(shown);
}

function addressOf(shorturl: string, baseUrl: string): { host: string | undefined; code: string } {
  if (shorturl.startsWith(`${baseUrl}/`)) return { host: undefined, code: shorturl.slice(baseUrl.length + 1) };
  if (!/^https?:\/\//i.test(shorturl)) return { host: undefined, code: shorturl };
  try {
    const url = new URL(shorturl);
    return { host: url.host, code: url.pathname.slice(1) };
  } catch {
    return { host: undefined, code: shorturl };
  }
}

/**
 * action=stats: `filter` top (most clicked first; also YOURLS's default, for any filter it does
 * not know) or last (newest first), `limit` links from `start`. bottom and rand are refused: the
 * list has no order for either.
 */
async function statsAnswer(params: YourlsParams, key: Principal, deps: YourlsDeps): Promise<YourlsAnswer> {
  const filter = params.get('filter') ?? '';
  if (filter === 'bottom' || filter === 'rand' || filter === 'random')
    throw new AppError('LIST_QUERY_INVALID', `filter=${filter} is not served here: use top or last.`);
  const sort = STATS_ORDERS[filter] ?? 'clicks';
  const limit = countParam(params.get('limit'), 'limit', LIST_LIMIT_MAX);
  const start = countParam(params.get('start'), 'start', TOTAL_MAX);
  // YOURLS lists links only for a limit above 0 (its default, with no limit, is none).
  const [listed, sums] = await Promise.all([
    limit === 0
      ? []
      : pageAt(deps.lists, key.workspaceId, { params: { sort }, skip: start, limit, counted: false }).then(({ page }) => page),
    totals(key, deps),
  ]);
  return answers.stats(
    listed.map((link) => answers.shownLink(link, deps.shortUrls.of(link).shortUrl)),
    sums,
  );
}

/** A whole number from 0 to `max`; absent or empty, 0 (YOURLS's intval of nothing). */
function countParam(value: string | undefined, name: string, max: number): number {
  if (value === undefined || value.trim() === '') return 0;
  const n = /^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : -1;
  if (n < 0 || n > max) throw new AppError('LIST_QUERY_INVALID', `${name} must be a whole number from 0 to ${max}.`);
  return n;
}

/**
 * yourls_get_db_stats for the key's workspace: its links as the list counts them (exact up to
 * TOTAL_MAX), and its clicks by people over the last 366 days, the longest range the stats answer.
 */
async function totals(key: Principal, deps: YourlsDeps): Promise<answers.Totals> {
  if (deps.stats === null) throw new AppError('ROUTE_NOT_FOUND', 'Stats are not served by this deployment.');
  const now = Date.now();
  const [counted, clicked] = await Promise.all([
    deps.lists.page(key.workspaceId, { sort: 'created', limit: 1, filter: {}, after: undefined }, true),
    deps.stats.workspace(key.workspaceId, { from: utcDay(now - 365 * DAY_MS), to: utcDay(now) }),
  ]);
  return { links: counted.total?.count ?? 0, atLeast: counted.total?.atLeast ?? false, clicks: clicked.range.clicks };
}

function filled(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
