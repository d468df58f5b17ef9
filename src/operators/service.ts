// What the deployment's operators do (docs/operators.md): act on a link's abuse reports (disable
// the link, block its target's domain on the operators' own list, suspend its workspace, or
// dismiss them), and suspend or lift the suspension of a workspace. Each change and its audit
// entries commit in one transaction; the read path is told after (propagation), as a change of a
// link's own is. The audit entries go to the workspace of the link (its admins see what was done to
// it, and by whom); their actor is the operator.

import type { Logger } from 'pino';
import pg from 'pg';
import { recordAudit, type Actor } from '../audit/audit.ts';
import type { Link } from '../core/link.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { AppError } from '../errors.ts';
import type { LinkChanges } from '../links/changes.ts';
import { addOperatorEntry, isOperator, markSuspended, suspendedLinks, workspaceState, workspaceSummaries } from './operator-store.ts';
import { closeReports, reportById, reportGroups, type ReportAction, type ReportedLink, type ReportStatus } from './report-store.ts';

/** Links of a workspace one statement blocks or unblocks, then announced together (about 1 ms a link: links/safety.ts). */
const ANNOUNCE_BATCH = 250;
/**
 * After this, every instance has read the suspension with its keys and sessions (auth/credentials.ts
 * keeps them 10 s) and refuses the workspace's creates: a second pass then blocks the links created
 * on another instance in that window.
 */
const CATCH_UP_MS = 15_000;

export interface OperatorDeps {
  readonly pool: pg.Pool;
  readonly breaker: DbBreaker;
  readonly links: Pick<LinkChanges, 'change'>;
  readonly propagation: { announce(links: readonly Link[]): Promise<void> };
  readonly blocklists: { refreshOperator(): Promise<unknown> };
  readonly linkSafety: { run(): Promise<void> };
  /** Forgets the keys and sessions this instance remembers: a suspension reaches them at once here (others: within 10 s). */
  readonly forgetCredentials: () => void;
  readonly log: Logger;
}

export class Operators {
  readonly #deps: OperatorDeps;

  constructor(deps: OperatorDeps) {
    this.#deps = deps;
  }

  #read<T>(work: (db: Queryable) => Promise<T>): Promise<T> {
    return this.#deps.breaker.run(() => work(this.#deps.pool));
  }

  #tx<T>(work: (db: Queryable) => Promise<T>): Promise<T> {
    return this.#deps.breaker.run(() => inTransaction(this.#deps.pool, work));
  }

  isOperator(personId: number): Promise<boolean> {
    return this.#read((db) => isOperator(db, personId));
  }

  reports(status: ReportStatus, limit: number) {
    return this.#read((db) => reportGroups(db, status, limit));
  }

  workspaces() {
    return this.#read((db) => workspaceSummaries(db));
  }

  /**
   * Acts on report `id` and every other open report of its link: 404 REPORT_NOT_FOUND, 409 CONFLICT
   * when they were handled already, 404 LINK_NOT_FOUND for an action on a link deleted since.
   */
  async act(id: number, action: ReportAction, actor: Actor & { personId: number }): Promise<void> {
    const report = await this.#read((db) => reportById(db, id));
    if (report === undefined) throw new AppError('REPORT_NOT_FOUND');
    if (report.status !== 'open') throw new AppError('CONFLICT', 'This report has been handled already.');
    const link = report.link;
    if (link === undefined && action !== 'dismiss') throw new AppError('LINK_NOT_FOUND', 'The reported link has been deleted since.');
    const close = async (db: Queryable, extra: object = {}) => {
      const reports = await closeReports(db, report.domainId, report.code, action, actor.personId);
      await recordAudit(db, actor, {
        workspaceId: link?.workspaceId ?? null,
        action: 'report.handle',
        targetType: 'report',
        targetId: id,
        after: { action, reports, code: report.code, domainId: report.domainId, url: link?.url ?? null, ...extra },
      });
    };
    if (action === 'dismiss' || link === undefined) return this.#tx((db) => close(db));
    if (action === 'disable_link') {
      // The link's own change, audited as link.update (links/store.ts), then the reports.
      await this.#deps.links.change({ domainId: link.domainId, code: link.code }, { disabled: true }, actor);
      return this.#tx((db) => close(db));
    }
    if (action === 'block_domain') return this.#blockDomain(link, actor, close);
    await this.#suspend(link.workspaceId, true, actor, close);
  }

  /** Suspends the workspace, or lifts its suspension: 404 WORKSPACE_NOT_FOUND; nothing changes when it already is so. */
  async suspend(workspaceId: number, suspended: boolean, actor: Actor): Promise<void> {
    await this.#suspend(workspaceId, suspended, actor, async () => undefined);
  }

  async #blockDomain(link: ReportedLink, actor: Actor & { personId: number }, close: (db: Queryable, extra: object) => Promise<void>) {
    // The target's host (with its subdomains), never more: a report of docs.google.com must not block google.com.
    const entry = new URL(link.url).hostname;
    await this.#tx(async (db) => {
      if (await addOperatorEntry(db, entry, `abuse report of ${link.code}`, actor.personId)) {
        await recordAudit(db, actor, {
          workspaceId: link.workspaceId,
          action: 'blocklist.add',
          targetType: 'blocklist',
          targetId: entry,
          after: { entry, list: 'operator' },
        });
      }
      await close(db, { entry });
    });
    // This instance reads the list again at once (others within 10 s), and marks the links it names.
    await this.#deps.blocklists.refreshOperator();
    await this.#deps.linkSafety.run();
  }

  /**
   * The workspace marked (audited, with `also`) in one transaction; then its links brought in line in
   * batches, each announced to every tier. A batch that fails leaves the rest to the next suspension
   * or lift of it (the call answers 503); creates meanwhile are blocked as they are written (db/links.ts).
   */
  async #suspend(workspaceId: number, suspended: boolean, actor: Actor, also: (db: Queryable) => Promise<void>): Promise<void> {
    await this.#tx(async (db) => {
      const state = await workspaceState(db, workspaceId);
      if (state === undefined) throw new AppError('WORKSPACE_NOT_FOUND', 'No workspace has this id.');
      if (state.suspended !== suspended && (await markSuspended(db, workspaceId, suspended))) {
        await recordAudit(db, actor, {
          workspaceId,
          action: suspended ? 'workspace.suspend' : 'workspace.unsuspend',
          targetType: 'workspace',
          targetId: workspaceId,
          before: { suspended: state.suspended },
          after: { suspended },
        });
      }
      await also(db);
    });
    this.#deps.forgetCredentials();
    await this.#followSuspension(workspaceId, suspended);
    if (suspended) {
      const again = () =>
        this.#followSuspension(workspaceId, suspended).catch((err: unknown) =>
          this.#deps.log.warn({ err, workspaceId }, 'links created while a suspension spread were not blocked'),
        );
      setTimeout(() => void again(), CATCH_UP_MS).unref();
    }
  }

  /** Brings the workspace's links in line with its suspension, a batch at a time, each announced. */
  async #followSuspension(workspaceId: number, suspended: boolean): Promise<void> {
    let changed = 0;
    for (;;) {
      const links: Link[] = await this.#read((db) => suspendedLinks(db, workspaceId, ANNOUNCE_BATCH));
      if (links.length === 0) break;
      await this.#deps.propagation.announce(links);
      changed += links.length;
    }
    if (changed > 0) this.#deps.log.info({ workspaceId, suspended, links: changed }, 'workspace suspension changed');
  }
}
