// GET and PUT /links/:code/health: a link's target health and its last probes; opting a link out of
// probes and back in (audited as link.health-probes). Any key of the link's workspace reads it; opting out takes the rights to
// change the link (auth/roles.ts changeProblem), as a PATCH of it does. docs/target-health.md.

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { CodeParams, LinkQuery, SECURITY } from '../api/schemas.ts';
import { actorOf } from '../audit/audit.ts';
import { requireKey } from '../auth/authenticate.ts';
import { changeProblem } from '../auth/roles.ts';
import { AppError, errorResponses as errors } from '../errors.ts';
import type { LinkService } from '../links/service.ts';
import { LinkHealth, PutHealthBody } from './schemas.ts';
import type { LinkHealthStore } from './link-health-store.ts';

export interface HealthRoutesDeps {
  readonly links: LinkService;
  readonly health: LinkHealthStore;
}

async function healthOf(deps: HealthRoutesDeps, domainId: number, code: string): Promise<LinkHealth> {
  const [health, history] = await deps.health.read(domainId, code);
  const probes = health?.probes ?? true;
  return {
    probes,
    status: health?.lastStatus ?? null,
    checkedAt: health?.lastChecked?.toISOString() ?? null,
    failures: health?.failures ?? 0,
    broken: health?.broken ?? false,
    brokenSince: health?.brokenSince?.toISOString() ?? null,
    nextProbeAt: health === undefined || !probes ? null : health.nextProbeAt.toISOString(),
    history: history.map((probe) => ({ at: probe.at.toISOString(), status: probe.status, ok: probe.ok, latencyMs: probe.latencyMs })),
  };
}

export async function healthRoutes(plain: FastifyInstance, deps: HealthRoutesDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/links/:code/health',
    {
      schema: {
        summary: "A link's target health and its last probes",
        description: 'Any key of the link’s workspace may read it. Probes run only where the deployment turned them on (HEALTH_PROBES).',
        tags: ['links'],
        security: SECURITY,
        params: CodeParams,
        querystring: LinkQuery,
        response: { 200: LinkHealth, ...errors(401, 404, 503) },
      },
    },
    async function readLinkHealth(request) {
      const link = await deps.links.find(requireKey(request), request.query.domain, request.params.code);
      return healthOf(deps, link.domainId, link.code);
    },
  );

  app.put(
    '/links/:code/health',
    {
      schema: {
        summary: 'Opt a link out of target probes, or back in',
        description: 'An admin of the link’s workspace, or the member that created it.',
        tags: ['links'],
        security: SECURITY,
        params: CodeParams,
        querystring: LinkQuery,
        body: PutHealthBody,
        response: { 200: LinkHealth, ...errors(400, 401, 403, 404, 415, 503) },
      },
    },
    async function putLinkHealth(request) {
      const key = requireKey(request);
      const link = await deps.links.find(key, request.query.domain, request.params.code);
      const problem = changeProblem(key, link.ownerKeyId, link.ownerPersonId);
      if (problem !== undefined) throw new AppError(problem);
      const { probes } = request.body;
      const targetId = link.domainHost === null ? link.code : `${link.domainHost}/${link.code}`;
      await deps.health.setProbes(
        { domainId: link.domainId, code: link.code, workspaceId: link.workspaceId, targetId },
        probes,
        actorOf(key, request.ip),
      );
      return healthOf(deps, link.domainId, link.code);
    },
  );
}
