// GET and POST /report: the abuse report form, on every short domain's host and the API host
// (api/api-hosts.ts LINK_ROUTES). `?code=` names a link on the form's own host (the warning page's
// button, core/warning-page.ts), `?url=` a short URL. A report names a live link of this
// deployment, a reason, and may carry a message and an email; it is stored without the client's
// address. Each client address may send REPORTS_PER_CLIENT an hour, the whole deployment
// REPORTS_PER_HOUR (counted across instances when Redis is on), then a polite 429 with Retry-After.

import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AttemptBudget } from '../api/attempt-budget.ts';
import { asShortCode } from '../core/codes.ts';
import { requestHostName } from '../core/domains.ts';
import type { HtmlPage } from '../core/html-page.ts';
import { reportFormPage, reportRefusedPage, reportThanksPage, type ReportForm } from '../core/report-page.ts';
import type { ShortUrls } from '../domains/short-urls.ts';
import { cleanEmail } from '../people/service.ts';
import type { HostTable, ServedDomain } from '../resolve/hosts.ts';
import { formToken, validFormToken } from './form-token.ts';
import { REPORT_REASONS, type ReportedLink, type ReportReason, type ReportStore } from './report-store.ts';

export const REPORTS_PER_CLIENT = 5;
export const REPORTS_PER_HOUR = 500;
export const REPORT_WINDOW_MS = 3_600_000;
const FORM_BODY_LIMIT = 8192;
const MESSAGE_MAX = 1000;

export interface ReportDeps {
  readonly hosts: Pick<HostTable, 'lookup' | 'byHost' | 'defaultDomain'>;
  readonly hostOf: (req: IncomingMessage) => string | undefined;
  readonly clientAddress: (req: IncomingMessage) => string;
  readonly shortUrls: Pick<ShortUrls, 'of'>;
  readonly reports: Pick<ReportStore, 'link' | 'add'>;
  /** REPORTS_PER_CLIENT per client address, and REPORTS_PER_HOUR for everyone (key "all"). */
  readonly perClient: AttemptBudget;
  readonly overall: AttemptBudget;
  /** The form tokens' key (core/keys.ts deriveKey). */
  readonly tokenKey: Buffer;
}

function send(reply: FastifyReply, page: HtmlPage): FastifyReply {
  for (let i = 0; i < page.head.length; i += 2) reply.header(page.head[i] as string, page.head[i + 1]);
  return reply.code(page.status).send(page.body);
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export async function reportRoutes(app: FastifyInstance, deps: ReportDeps): Promise<void> {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  const hostName = (req: IncomingMessage) => requestHostName(deps.hostOf(req) ?? deps.hosts.defaultDomain.host);
  /** The domain the form's host serves (the API host: the default domain). */
  const formDomain = (req: IncomingMessage): ServedDomain => deps.hosts.lookup(deps.hostOf(req)) ?? deps.hosts.defaultDomain;

  app.get<{ Querystring: Record<string, string> }>(
    '/report',
    {
      schema: {
        summary: 'The abuse report form',
        description: 'An HTML form for anyone: `?code=` names a link on this host, `?url=` a short URL to fill in. docs/operators.md.',
        tags: ['redirect'],
      },
    },
    async function reportForm(request, reply) {
      const code = text(request.query.code);
      const shaped = asShortCode(code);
      const shortUrl =
        shaped !== undefined ? deps.shortUrls.of({ domainId: formDomain(request.raw).id, code: shaped }).shortUrl : text(request.query.url);
      const token = formToken(deps.tokenKey, hostName(request.raw), Date.now());
      return send(reply, reportFormPage({ shortUrl: shortUrl.slice(0, 2100), reason: '', message: '', email: '', token }));
    },
  );

  app.post<{ Body: Record<string, string> }>(
    '/report',
    {
      bodyLimit: FORM_BODY_LIMIT,
      schema: {
        summary: 'Send an abuse report',
        description:
          'The form of GET /report posts here (application/x-www-form-urlencoded: url, reason, message, email, token). 201 and a ' +
          `thank-you page; 400 or 404 and the form again with what to fix; ${REPORTS_PER_CLIENT} reports an hour per client, then 429 ` +
          'with Retry-After (`x-error-code: REPORT_RATE_LIMITED`).',
        tags: ['redirect'],
      },
    },
    async function sendReport(request, reply) {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const host = hostName(request.raw);
      const now = Date.now();
      const form: ReportForm = {
        shortUrl: text(body.url).slice(0, 2100),
        reason: text(body.reason),
        message: text(body.message),
        email: text(body.email).trim(),
        token: formToken(deps.tokenKey, host, now),
      };
      const refuse = (status: number, code: string, field: string, words: string) =>
        send(reply, reportFormPage({ ...form, error: { field, text: words } }, status, ['x-error-code', code]));
      if (!validFormToken(deps.tokenKey, host, body.token, now)) {
        return refuse(
          400,
          'REPORT_FORM_EXPIRED',
          'url',
          'This form was open too long, or did not come from this page. Check it and send it again.',
        );
      }
      if (!(REPORT_REASONS as readonly string[]).includes(form.reason))
        return refuse(400, 'REPORT_INVALID', 'reason', 'Choose what is wrong with the link.');
      if (form.message.length > MESSAGE_MAX)
        return refuse(400, 'REPORT_INVALID', 'message', `Shorten the message to ${MESSAGE_MAX} characters.`);
      const email = form.email === '' ? null : cleanEmail(form.email);
      if (email === undefined)
        return refuse(400, 'REPORT_INVALID', 'email', 'This is not an email address: correct it, or leave it empty.');
      const link = await linkOf(form.shortUrl, request.raw);
      if (link === undefined) {
        return refuse(
          404,
          'REPORTED_LINK_NOT_FOUND',
          'url',
          'This is not a short link of this service. Copy the whole address of the link, as https://…/code.',
        );
      }
      // Judged before counted: a mistyped address costs nobody a report.
      for (const [budget, who] of [
        [deps.perClient, deps.clientAddress(request.raw)],
        [deps.overall, 'all'],
      ] as const) {
        const taken = await budget.take(who);
        if (!taken.ok) {
          const words = 'Thank you. We have had many reports from here just now, so we cannot take another yet. Please try again later.';
          return send(
            reply,
            reportRefusedPage(429, words, ['retry-after', String(taken.retryAfterSeconds), 'x-error-code', 'REPORT_RATE_LIMITED']),
          );
        }
      }
      const reason = form.reason as ReportReason;
      const message = form.message.trim() === '' ? null : form.message.trim();
      await deps.reports.add({ domainId: link.domainId, code: link.code, reason, message, email });
      return send(reply, reportThanksPage());
    },
  );

  /** The live link a short URL names (a full URL, or host/code), on a domain this deployment serves. */
  async function linkOf(raw: string, req: IncomingMessage): Promise<ReportedLink | undefined> {
    const trimmed = raw.trim();
    if (trimmed === '') return undefined;
    let url: URL;
    let path: string;
    try {
      url = new URL(/^https?:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`);
      path = decodeURIComponent(url.pathname.slice(1));
    } catch {
      return undefined;
    }
    const name = requestHostName(url.host);
    const domain = deps.hosts.byHost(name) ?? (name === hostName(req) ? formDomain(req) : undefined);
    const code = asShortCode(path);
    if (domain === undefined || code === undefined) return undefined;
    return deps.reports.link(domain.id, code);
  }
}
