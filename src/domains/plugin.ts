// Short domains on the read path: the table from Host to domain (resolve/hosts.ts) that the
// redirect handler reads, and the short URLs of links on each domain. Its routes are the API's.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { requestHostName } from '../core/domains.ts';
import { readAllDomains } from './store.ts';
import { createShortUrls, type ShortUrls } from './short-urls.ts';
import { HostTable } from '../resolve/hosts.ts';
import type { PartOptions } from '../part.ts';

declare module 'fastify' {
  interface FastifyInstance {
    hosts: HostTable;
    shortUrls: ShortUrls;
  }
}

export default fp(
  async function domainsPart(app: FastifyInstance, { config, log }: PartOptions) {
    const { db } = app;
    const hosts = new HostTable({
      defaultHost: requestHostName(new URL(config.baseUrl).host),
      defaultAliases: config.defaultDomainHosts,
      // Not through the breaker, as the code space's reads: a background read that fails only keeps
      // the table it has, and must neither open the breaker of requests nor take its trial call.
      read: () => readAllDomains(db),
      log,
    });
    app.addHook('onClose', async () => {
      hosts.stop();
    });
    await hosts.start();
    app.decorate('hosts', hosts);
    app.decorate('shortUrls', createShortUrls(config.baseUrl, hosts));
  },
  { name: 'domains', dependencies: ['postgres'] },
);
