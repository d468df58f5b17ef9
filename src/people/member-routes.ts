// The members of a workspace, its invitations and its settings. Any member reads the member list;
// admins invite, change roles, remove members and change settings; anyone may leave (remove
// themselves), except the last admin. Any member reads the settings. Every change is audited in its
// transaction. docs/people.md, docs/settings.md.

import { SECURITY } from '../api/schemas.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { recordAudit } from '../audit/audit.ts';
import { requireAdmin, requireKey } from '../auth/authenticate.ts';
import type { Credentials } from '../auth/credentials.ts';
import { parseId } from '../core/ids.ts';
import { cleanName } from '../core/names.ts';
import { AppError, errorResponses as errors } from '../errors.ts';
import { changeRole, findMember, listMembers, removeMember, type Member } from './people-store.ts';
import * as S from './schemas.ts';
import type { PeopleService } from './service.ts';
import { DEFAULT_DOMAIN_ID, storedHostOf } from '../core/domains.ts';
import type { HostTable } from '../resolve/hosts.ts';
import { logoDataUrl } from './brand.ts';
import { auditedSettings, readSettings, writeSettings, type WorkspaceSettings } from './workspace-settings.ts';
import { requireSecondFactorProblem } from './second-factor-requirement.ts';
import { requireSsoProblem } from './sso-requirement.ts';
import { requestActor } from './route-helpers.ts';

export interface MemberDeps {
  readonly people: PeopleService;
  readonly credentials: Pick<Credentials, 'forgetAll'>;
  /** Whether single sign-on is set up (OIDC_ISSUER and OIDC_CLIENT_ID): requireSso may be turned on. */
  readonly sso?: boolean;
}

const tags = ['people'];
const NoBody = { type: 'null', description: 'Done.' } as const;

const memberView = (member: Member, you: number | null) => ({
  id: member.id,
  name: member.name,
  email: member.email,
  emailVerified: member.emailVerified,
  role: member.role,
  joinedAt: member.joinedAt.toISOString(),
  you: member.id === you,
});

function idOf(raw: string, code: 'MEMBER_NOT_FOUND' | 'INVITATION_NOT_FOUND'): number {
  const id = parseId(raw);
  if (id === undefined) throw new AppError(code);
  return id;
}

export async function memberRoutes(plain: FastifyInstance, deps: MemberDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { people } = deps;

  app.get(
    '/members',
    { schema: { summary: "The workspace's members", tags, security: SECURITY, response: { 200: S.MemberList, ...errors(401, 503) } } },
    async function list(request) {
      const key = requireKey(request);
      const members = await people.read((db) => listMembers(db, key.workspaceId));
      return { members: members.map((member) => memberView(member, key.personId)) };
    },
  );

  app.patch(
    '/members/:id',
    {
      schema: {
        summary: "Change a member's role",
        description: 'Their personal API keys of the workspace keep at most the new role. The last admin stays an admin (409 LAST_ADMIN).',
        tags,
        security: SECURITY,
        params: S.IdParams,
        body: S.RoleBody,
        response: { 200: S.MemberView, ...errors(400, 401, 403, 404, 409, 415, 503) },
      },
    },
    async function setRole(request) {
      const admin = requireAdmin(request, 'members');
      const personId = idOf(request.params.id, 'MEMBER_NOT_FOUND');
      const { role } = request.body;
      const changed = await people.tx(async (db) => {
        const before = await findMember(db, admin.workspaceId, personId);
        const after = await changeRole(db, admin.workspaceId, personId, role);
        if (before === undefined || after === undefined) throw new AppError('MEMBER_NOT_FOUND');
        await recordAudit(db, requestActor(request), {
          workspaceId: admin.workspaceId,
          action: 'member.role',
          targetType: 'person',
          targetId: personId,
          before: { role: before.role },
          after: { role },
        });
        return after;
      });
      deps.credentials.forgetAll();
      return memberView(changed, admin.personId);
    },
  );

  app.delete(
    '/members/:id',
    {
      schema: {
        summary: 'Remove a member, or leave',
        description:
          'An admin removes anyone; a member removes themselves (leaves). Their keys of the workspace are revoked and their sessions ' +
          'in it closed. The last admin cannot leave (409 LAST_ADMIN).',
        tags,
        security: SECURITY,
        params: S.IdParams,
        response: { 204: NoBody, ...errors(401, 403, 404, 409, 503) },
      },
    },
    async function remove(request, reply) {
      const key = requireKey(request);
      const personId = idOf(request.params.id, 'MEMBER_NOT_FOUND');
      if (personId !== key.personId) requireAdmin(request, 'members');
      await people.tx(async (db) => {
        const removed = await removeMember(db, key.workspaceId, personId);
        if (removed === undefined) throw new AppError('MEMBER_NOT_FOUND');
        await recordAudit(db, requestActor(request), {
          workspaceId: key.workspaceId,
          action: 'member.remove',
          targetType: 'person',
          targetId: personId,
          before: { email: removed.email, role: removed.role },
        });
      });
      deps.credentials.forgetAll();
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/members/:id/reset-link',
    {
      schema: {
        summary: 'Make a password reset link for a member',
        description: 'For when this service sends no mail: hand the link over yourself. It works once, for an hour.',
        tags,
        security: SECURITY,
        params: S.IdParams,
        response: { 201: S.ResetLink, ...errors(401, 403, 404, 503) },
      },
    },
    async function resetLink(request, reply) {
      const admin = requireAdmin(request, 'members');
      const personId = idOf(request.params.id, 'MEMBER_NOT_FOUND');
      const made = await people.tx(async (db) => {
        if ((await findMember(db, admin.workspaceId, personId)) === undefined) throw new AppError('MEMBER_NOT_FOUND');
        await recordAudit(db, requestActor(request), {
          workspaceId: admin.workspaceId,
          action: 'member.reset-link',
          targetType: 'person',
          targetId: personId,
        });
        return true;
      });
      if (!made) throw new AppError('MEMBER_NOT_FOUND');
      const link = await people.resetLink(personId);
      reply.code(201).header('cache-control', 'no-store');
      return { url: link.url, expiresAt: link.expiresAt.toISOString() };
    },
  );
}

export interface SettingsDeps extends MemberDeps {
  /** The host table: the default domain is one it serves; it reads the brand and the default domain again after a change. */
  readonly hosts: Pick<HostTable, 'byHost' | 'refresh' | 'defaultDomain'>;
  /** SESSION_TTL_HOURS, in ms: a session's length when the workspace sets none. */
  readonly sessionTtlMs: number;
}

/** Room for a 32 KiB logo in base64 and the rest, and for one too large to get its own 400. */
const SETTINGS_BODY_LIMIT_BYTES = 256 * 1024;

/** The workspace's settings: every member reads them, admins change them. */
export async function settingsRoutes(plain: FastifyInstance, deps: SettingsDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { people, hosts } = deps;
  const view = (settings: WorkspaceSettings, request: FastifyRequest) => ({
    ...settings,
    brand: { ...settings.brand, logo: settings.brand.logo === null ? null : logoDataUrl(settings.brand.logo) },
    defaults: { domain: hosts.defaultDomain.host, sessionHours: deps.sessionTtlMs / HOUR_MS },
    canRequireSso: requireSsoProblem(request, deps.sso === true) === undefined,
    canRequireSecondFactor: requireSecondFactorProblem(request) === undefined,
  });

  app.get(
    '/workspace',
    {
      schema: {
        summary: "The workspace's settings",
        description: 'Any member reads them; admins change them.',
        tags,
        security: SECURITY,
        response: { 200: S.WorkspaceSettings, ...errors(401, 503) },
      },
    },
    async function read(request) {
      const key = requireKey(request);
      return view(await people.read((db) => readSettings(db, key.workspaceId)), request);
    },
  );

  app.patch(
    '/workspace',
    {
      bodyLimit: SETTINGS_BODY_LIMIT_BYTES,
      schema: {
        summary: "Change the workspace's settings",
        description: 'Fields left out are kept. Each change is in the audit log (workspace.settings). docs/settings.md.',
        tags,
        security: SECURITY,
        body: S.WorkspaceSettingsBody,
        response: { 200: S.WorkspaceSettings, ...errors(400, 401, 403, 409, 413, 415, 503) },
      },
    },
    async function write(request) {
      const admin = requireAdmin(request, 'settings');
      const { body } = request;
      const name = body.name === undefined ? undefined : cleanName(body.name);
      if (body.name !== undefined && name === undefined) throw new AppError('NAME_INVALID', undefined, { field: 'name' });
      const defaultDomainId =
        body.defaultDomain === undefined || body.defaultDomain === null
          ? body.defaultDomain
          : await servedDomainIdOf(hosts, body.defaultDomain, admin.workspaceId);
      const { defaultDomain: _host, ...rest } = body;
      const changed = await people.tx(async (db) => {
        const before = await readSettings(db, admin.workspaceId);
        const ssoProblem = body.requireSso === true && !before.requireSso ? requireSsoProblem(request, deps.sso === true) : undefined;
        if (ssoProblem !== undefined) throw new AppError(ssoProblem, undefined, { field: 'requireSso' });
        const factorProblem =
          body.requireSecondFactor === true && !before.requireSecondFactor ? requireSecondFactorProblem(request) : undefined;
        if (factorProblem !== undefined) throw new AppError(factorProblem, undefined, { field: 'requireSecondFactor' });
        const after = await writeSettings(db, admin.workspaceId, { ...rest, name, defaultDomainId });
        await recordAudit(db, requestActor(request), {
          workspaceId: admin.workspaceId,
          action: 'workspace.settings',
          targetType: 'workspace',
          targetId: admin.workspaceId,
          before: auditedSettings(before),
          after: auditedSettings(after),
        });
        return { before, after };
      });
      const { before, after } = changed;
      // Sessions remember what their workspace requires, and when they end, for a few seconds: a change holds at once.
      if (
        before.requireSso !== after.requireSso ||
        before.requireSecondFactor !== after.requireSecondFactor ||
        before.sessionHours !== after.sessionHours
      )
        deps.credentials.forgetAll();
      // Visitors' pages on the workspace's domains show its brand, and creates go on its default domain, as the host
      // table has read them: this instance reads them now, the others within REFRESH_MS.
      if (body.brand !== undefined || body.defaultDomain !== undefined) await hosts.refresh();
      return view(after, request);
    },
  );
}

const HOUR_MS = 3_600_000;

/**
 * The id of the domain `host` names for a default domain: a served one of the workspace, or null
 * for the deployment's own. Looked for again after one refresh of the host table, as creates do.
 */
async function servedDomainIdOf(
  hosts: Pick<HostTable, 'byHost' | 'refresh' | 'defaultDomain'>,
  host: string,
  workspaceId: number,
): Promise<number | null> {
  const name = storedHostOf(host);
  const find = () => hosts.byHost(name);
  let domain = find();
  if (domain === undefined || !domain.served) {
    await hosts.refresh();
    domain = find();
  }
  if (domain?.id === DEFAULT_DOMAIN_ID) return null;
  if (domain === undefined || domain.workspaceId !== workspaceId)
    throw new AppError('DEFAULT_DOMAIN_UNKNOWN', undefined, { field: 'defaultDomain' });
  if (!domain.served) throw new AppError('DOMAIN_NOT_VERIFIED', undefined, { field: 'defaultDomain' });
  return domain.id;
}
