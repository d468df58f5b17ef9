// Links management as a part: creates (one at a time, in bulk, from a CSV file) through the write
// queue with their rate limits, a link's details, changes and deletion, the list and its export,
// QR codes, and the form of password-protected links. The click limits of links are plugged into
// the edge's ports (edge/ports.ts). The routes live in a context of their own: the rate limiter
// and the creates' hooks stay with them.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config/config.ts';
import { AttemptBudget } from '../api/attempt-budget.ts';
import { clientCounter } from '../api/counters.ts';
import { HashSlots } from '../core/hash-slots.ts';
import { deriveKey } from '../core/keys.ts';
import { hashPassword, PASS_KEY_PURPOSE } from '../core/link-passwords.ts';
import { targetPolicyOf } from '../core/target-policy.ts';
import type { PartOptions } from '../part.ts';
import { Blocklists } from './blocklists.ts';
import { LinkSafetySweeper } from './safety.ts';
import { operatorEntries, operatorListStamp } from './safety-store.ts';
import { aliasRoutes } from './alias-routes.ts';
import { AliasStore } from './alias-store.ts';
import { LinkChanges } from './changes.ts';
import { ClickLimits } from './click-limits.ts';
import { createCounter, registerCreateLimits } from './create-limits.ts';
import { linksRoutes } from './create-routes.ts';
import { LinkCreates } from './creates.ts';
import { importRoutes } from './import-routes.ts';
import { linkListRoutes } from './list-routes.ts';
import { LinkLists } from './list-store.ts';
import { manageRoutes } from './manage-routes.ts';
import { ATTEMPTS_MAX, ATTEMPTS_WINDOW_MS, linkPasswordRoutes } from './password-routes.ts';
import { qrRoutes } from './qr-routes.ts';
import { LinkService } from './service.ts';
import { LinkStore } from './store.ts';
import { WorkspaceLinks } from './workspace-links.ts';
import { WorkspaceSlots } from './workspace-slots.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Changes and deletions of links, told to every instance. */
    links: LinkChanges;
    /** The link list's pages, read through listDb, and how each was planned. */
    linkLists: LinkLists;
    /** The destination blocklists every create and change is checked against; refresh() reads them again. */
    blocklists: Blocklists;
    /** Finds and acts on the links made before a list named their target; run() resolves once what is pending is done. */
    linkSafety: LinkSafetySweeper;
    /** What the compatible APIs (compat/) call, as the routes here do. */
    linkApi: LinkApi;
  }
}

/** The links' services, for routes registered by other parts in contexts of their own. */
export interface LinkApi {
  readonly creates: LinkCreates;
  readonly links: LinkService;
  /** Registers the create limits in `context` (sharing one count with POST /links); its route config, or undefined when off. */
  createLimits(context: FastifyInstance): Promise<Record<string, unknown> | undefined>;
}

/** Click limits count in Redis when there is one (never Postgres beside it, which would count apart), else in Postgres. */
function clickLimitsOf(app: FastifyInstance, config: Config): ClickLimits {
  return new ClickLimits(
    app.redis === null
      ? { db: app.db, breaker: app.breaker }
      : { redis: app.redis.client, prefix: config.redisKeyPrefix, reached: (links) => app.webhooks.limitsReached(links) },
  );
}

/**
 * BLOCKLISTS and the operators' list read once before the first create, then on their schedule until
 * the app closes; the links their entries name are swept in the background (a first sweep at
 * start-up looks at every entry: links made while no instance ran are found too).
 */
async function loadedBlocklists(app: FastifyInstance, config: Config, log: PartOptions['log']): Promise<[Blocklists, LinkSafetySweeper]> {
  const sweeper: LinkSafetySweeper = new LinkSafetySweeper({
    db: app.db,
    propagation: app.propagation,
    action: config.blocklistAction === 'warn' ? 'flagged' : 'blocked',
    match: (url) => blocklists.match(url),
    log,
  });
  const blocklists: Blocklists = new Blocklists({
    lists: config.blocklists,
    allowFile: config.blocklistAllowFile,
    maxBytes: config.blocklistMaxBytes,
    log,
    metrics: app.metrics,
    operator: { entries: () => operatorEntries(app.db), stamp: () => operatorListStamp(app.db) },
    onNewEntries: (keys) => void sweeper.sweep(keys),
  });
  await Promise.all([blocklists.refresh(), blocklists.refreshOperator(true)]);
  blocklists.schedule(config.blocklistRefreshMs);
  sweeper.schedule();
  void sweeper.run();
  app.addHook('onClose', async () => {
    blocklists.stop();
    await sweeper.stop();
  });
  return [blocklists, sweeper];
}

async function linksPart(app: FastifyInstance, { config, log }: PartOptions): Promise<void> {
  const { db, breaker, shortUrls, propagation, codeSpace } = app;
  const policy = targetPolicyOf(config, (host) => app.hosts.serves(host));
  const [blocklists, linkSafety] = await loadedBlocklists(app, config, log);
  const store = new LinkStore(db, breaker);
  const changes = new LinkChanges(store, propagation);
  const slots = new HashSlots(config.passwordHashesAtOnce, config.passwordGuessesWaiting);
  const hashNew = (password: string): Promise<string> => slots.newPassword(() => hashPassword(password));
  const creates = new LinkCreates({
    hashPassword: hashNew,
    queue: app.writeQueue,
    store,
    policy,
    blocklists,
    domainOf: async (host, workspaceId) => (await shortUrls.servedDomainOf(host, workspaceId)).id,
  });
  const limits = clickLimitsOf(app, config);
  const lists = new LinkLists(app.listDb, app.listBreaker, limits);
  const links = new LinkService({
    found: new WorkspaceLinks(store, shortUrls),
    changes,
    policy,
    blocklists,
    hashPassword: hashNew,
    counts: limits,
  });
  app.redirectPorts.limits = limits;

  const limitsDeps = { config, redis: app.redis?.client ?? null, log };
  const createCounts = createCounter(limitsDeps);
  const createLimits = (context: FastifyInstance) => registerCreateLimits(context, limitsDeps, createCounts);
  await app.register(async function linkRoutes(routes) {
    const createRouteConfig = await createLimits(routes);
    const limited = createRouteConfig === undefined ? {} : { createRouteConfig };
    await routes.register(linksRoutes, {
      creates,
      shortUrls,
      keyRequired: config.createRequiresApiKey,
      slowRequestMs: config.slowRequestMs,
      ackDelayMs: (alias) => codeSpace.ackDelayMs(alias),
      ...limited,
    });
    await routes.register(importRoutes, { creates, store, shortUrls, policy, ...limited });
    await routes.register(manageRoutes, { links, shortUrls });
    await routes.register(aliasRoutes, {
      aliases: new AliasStore(db, breaker),
      shortUrls,
      notFoundLimit: app.notFoundLimit,
      clientAddress: app.clientAddress,
    });
    await routes.register(linkListRoutes, { lists, shortUrls, slow: new WorkspaceSlots(config.listSlowPerWorkspace) });
    await routes.register(qrRoutes, {
      shortUrls,
      hosts: app.hosts,
      cache: app.cache,
      codeSpace,
      resolver: app.resolver,
      notFoundLimit: app.notFoundLimit,
      clientAddress: app.clientAddress,
    });
    await routes.register(linkPasswordRoutes, {
      hosts: app.hosts,
      hostOf: app.hostOf,
      clientAddress: app.clientAddress,
      cache: app.cache,
      codeSpace,
      resolver: app.resolver,
      notFoundLimit: app.notFoundLimit,
      store,
      attempts: new AttemptBudget(
        clientCounter(app.redis?.client ?? null, config.redisKeyPrefix, log, 'password-attempts:', 'link-password attempts'),
        ATTEMPTS_MAX,
        ATTEMPTS_WINDOW_MS,
      ),
      slots,
      passKey: deriveKey(config.codeSecret, PASS_KEY_PURPOSE),
    });
  });
  app.decorate('blocklists', blocklists);
  app.decorate('linkSafety', linkSafety);
  app.decorate('links', changes);
  app.decorate('linkLists', lists);
  app.decorate('linkApi', { creates, links, createLimits });
}

export default fp(linksPart, { name: 'links', dependencies: ['write-path', 'edge', 'auth', 'domains', 'webhooks'] });
