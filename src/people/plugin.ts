// People: accounts (setup, password sign-in, single sign-on, resets, verification, profile and sessions), the
// members and invitations of workspaces, workspace settings and the audit log (docs/people.md).
// While no person exists, a one-time setup token is made and logged at start: setting up the first
// admin from another address than loopback needs it. Wrong passwords are limited per client and per
// account, in Redis across instances when the tier is on.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AttemptBudget } from '../api/attempt-budget.ts';
import { clientCounter } from '../api/counters.ts';
import { HashSlots } from '../core/hash-slots.ts';
import type { PartOptions } from '../part.ts';
import { profileRoutes, recoveryRoutes, sessionListRoutes } from './account-routes.ts';
import { acceptRoutes, invitationRoutes, joinRoutes } from './invitation-routes.ts';
import { InvitationService } from './invitation-service.ts';
import { auditPart, auditRoutes } from './audit-routes.ts';
import { mailerOf } from './mail.ts';
import { memberRoutes, settingsRoutes } from './member-routes.ts';
import { PeopleService } from './service.ts';
import { secondFactorParts } from './second-factor-routes.ts';
import { secondFactorsOf } from './second-factor-service.ts';
import { signInRoutes } from './sign-in-routes.ts';
import { ssoOf, ssoRoutes } from './sso-routes.ts';

async function peoplePart(app: FastifyInstance, { config, log }: PartOptions): Promise<void> {
  const counter = (namespace: string, what: string) =>
    clientCounter(app.redis?.client ?? null, config.redisKeyPrefix, log, namespace, what);
  const mailer = mailerOf(config, log);
  if (mailer !== null) app.addHook('onClose', () => mailer.close());
  const dashboardUrl = `${config.baseUrl}/app/`;
  const people = new PeopleService({
    pool: app.authPool,
    breaker: app.authBreaker,
    mailer,
    dashboardUrl,
    // The per-client budget is the one of API-key sign-ins (the same namespace): guesses of keys and passwords share it.
    clientAttempts: new AttemptBudget(counter('signin:', 'sign-in limits'), config.signInMaxFailures, config.signInWindowMs),
    slots: new HashSlots(config.passwordHashesAtOnce, config.passwordGuessesWaiting),
    accountAttempts: new AttemptBudget(
      counter('signin-account:', 'account sign-in limits'),
      config.signInAccountMaxFailures,
      config.signInWindowMs,
    ),
  });
  app.addHook('onReady', async () => {
    const token = await people.setupToken().catch((err: unknown) => {
      log.error({ err }, 'could not read whether the first admin is set up');
      return null;
    });
    if (token === null) return;
    log.warn(
      { setup: `${dashboardUrl}setup?token=${token}` },
      'no person exists yet: open the dashboard to set up the first admin (from this machine, or anywhere with this one-time link)',
    );
  });
  const { store, credentials } = app.auth;
  const deps = {
    people,
    store,
    credentials,
    ttlMs: config.sessionTtlMs,
    sessionsPerKeyMax: config.sessionsPerKeyMax,
    baseUrl: config.baseUrl,
  };
  const sso = ssoOf(config, people, log);
  const factors = secondFactorsOf(config, people, log);
  await app.register(signInRoutes, { ...deps, ssoName: sso?.name ?? null, passkeys: factors.passkeys.available });
  await app.register(secondFactorParts, { ...deps, factors });
  await app.register(ssoRoutes, { ...deps, sso });
  await app.register(recoveryRoutes, deps);
  await app.register(profileRoutes, deps);
  await app.register(sessionListRoutes, deps);
  const withInvitations = { ...deps, invitations: new InvitationService(people) };
  await app.register(acceptRoutes, withInvitations);
  await app.register(invitationRoutes, withInvitations);
  await app.register(joinRoutes, withInvitations);
  await app.register(memberRoutes, { people, credentials });
  await app.register(settingsRoutes, {
    people,
    credentials,
    sso: sso !== null,
    hosts: app.hosts,
    sessionTtlMs: config.sessionTtlMs,
  });
  await app.register(auditRoutes, { db: app.authDb, breaker: app.authBreaker });
  await app.register(auditPart, { db: app.authDb, breaker: app.authBreaker, log });
}

export default fp(peoplePart, { name: 'people', dependencies: ['postgres', 'redis', 'read-path', 'auth'] });
