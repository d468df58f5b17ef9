// The operators' API (docs/operators.md): the abuse report queue and its actions, and the
// workspaces with their suspension. For a person signed in to the dashboard whose account is an
// operator's (people.operator): an API key, even an operator's personal one, carries no operator
// power (403 OPERATOR_REQUIRED), so that the powers above workspaces stay behind a session, its
// CSRF token and the person's second factor.

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { actorOf, type Actor } from '../audit/audit.ts';
import { parseId } from '../core/ids.ts';
import { AppError, errorResponses as errors } from '../errors.ts';
import type { ShortUrls } from '../domains/short-urls.ts';
import type { Operators } from './service.ts';
import type { ReportGroup } from './report-store.ts';
import {
  ActionBody,
  Done,
  IdParams,
  OperatorState,
  ReportList,
  ReportsQuery,
  SESSION_ONLY,
  SuspendBody,
  tags,
  WorkspaceList,
} from './schemas.ts';

export interface QueueDeps {
  readonly operators: Operators;
  readonly shortUrls: Pick<ShortUrls, 'of'>;
}

/** The operator the request's session is for, as an audit actor: 401 without a session, 403 OPERATOR_REQUIRED otherwise. */
async function operatorActor(request: FastifyRequest, operators: Operators): Promise<Actor & { personId: number }> {
  if (request.apiKey === null) throw new AppError('NOT_SIGNED_IN');
  const personId = request.session?.personId ?? null;
  if (personId === null || !(await operators.isOperator(personId))) throw new AppError('OPERATOR_REQUIRED');
  return { ...actorOf(request.apiKey, request.ip), personId };
}

export async function queueRoutes(plain: FastifyInstance, { operators, shortUrls }: QueueDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();

  const operatorOf = (request: FastifyRequest) => operatorActor(request, operators);

  const groupView = (group: ReportGroup) => ({
    ...group,
    shortUrl: shortUrls.of(group).shortUrl,
    firstAt: group.firstAt.toISOString(),
    lastAt: group.lastAt.toISOString(),
    handledAt: group.handledAt?.toISOString() ?? null,
    notes: group.notes.map((note) => ({ ...note, createdAt: note.createdAt.toISOString() })),
  });

  app.get(
    '/operator/me',
    {
      schema: {
        summary: 'Whether the signed-in person is an operator of the deployment',
        description: 'For the dashboard, to show its Operator page: false for an API key, or a person who is not one.',
        tags,
        security: SESSION_ONLY,
        response: { 200: OperatorState, ...errors(401, 503) },
      },
    },
    async (request) => {
      if (request.apiKey === null) throw new AppError('NOT_SIGNED_IN');
      const personId = request.session?.personId ?? null;
      return { operator: personId !== null && (await operators.isOperator(personId)) };
    },
  );

  app.get(
    '/operator/reports',
    {
      schema: {
        summary: 'The abuse report queue',
        description:
          'Operators only. A link’s reports of one status (open by default) as one group with their count, the most reported first.',
        tags,
        security: SESSION_ONLY,
        querystring: ReportsQuery,
        response: { 200: ReportList, ...errors(400, 401, 403, 503) },
      },
    },
    async (request) => {
      await operatorOf(request);
      const groups = await operators.reports(request.query.status ?? 'open', request.query.limit ?? 100);
      return { groups: groups.map(groupView) };
    },
  );

  app.post(
    '/operator/reports/:id/action',
    {
      config: { operator: true },
      schema: {
        summary: 'Act on a link’s open reports',
        description:
          'Operators only. disable_link (the link answers 410), block_domain (its target’s host, with its subdomains, joins the operators’ ' +
          'blocklist: every link to it answers 451, and creates naming it are refused), suspend_workspace (the link’s workspace), ' +
          'or dismiss. Every open report of the link is closed with the action; audited.',
        tags,
        security: SESSION_ONLY,
        params: IdParams,
        body: ActionBody,
        response: { 204: Done, ...errors(400, 401, 403, 404, 409, 415, 503) },
      },
    },
    async (request, reply) => {
      const actor = await operatorOf(request);
      const id = parseId(request.params.id);
      if (id === undefined) throw new AppError('REPORT_NOT_FOUND');
      await operators.act(id, request.body.action, actor);
      return reply.code(204).send(null);
    },
  );

  await plain.register(workspaceRoutes, { operators, shortUrls });
}

/** The workspaces, and their suspension. */
async function workspaceRoutes(plain: FastifyInstance, { operators }: QueueDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const operatorOf = (request: FastifyRequest) => operatorActor(request, operators);

  app.get(
    '/operator/workspaces',
    {
      schema: {
        summary: 'Every workspace of the deployment',
        description: 'Operators only. With its members and links counted, and whether it is suspended; suspended ones first.',
        tags,
        security: SESSION_ONLY,
        response: { 200: WorkspaceList, ...errors(401, 403, 503) },
      },
    },
    async (request) => {
      await operatorOf(request);
      const workspaces = await operators.workspaces();
      return { workspaces: workspaces.map((w) => ({ ...w, suspendedAt: w.suspendedAt?.toISOString() ?? null })) };
    },
  );

  app.patch(
    '/operator/workspaces/:id',
    {
      config: { operator: true },
      schema: {
        summary: 'Suspend a workspace, or lift its suspension',
        description:
          'Operators only. Suspended: its links answer 451 LINK_BLOCKED (list "suspended"), its keys and sessions may read but ' +
          'not write (403 WORKSPACE_SUSPENDED). Lifted: exactly those links redirect again. Audited.',
        tags,
        security: SESSION_ONLY,
        params: IdParams,
        body: SuspendBody,
        response: { 204: Done, ...errors(400, 401, 403, 404, 415, 503) },
      },
    },
    async (request, reply) => {
      const actor = await operatorOf(request);
      const id = parseId(request.params.id);
      if (id === undefined) throw new AppError('WORKSPACE_NOT_FOUND', 'No workspace has this id.');
      await operators.suspend(id, request.body.suspended, actor);
      return reply.code(204).send(null);
    },
  );
}
