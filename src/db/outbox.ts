// The outbox (migrations/0013_webhooks.sql): every statement that changes links writes its events
// here in the same statement, so that an event commits with its change or not at all; the webhook
// worker (webhooks/worker.ts) delivers them. These are the fragments such statements are made of.

/**
 * CTEs, to follow others in a statement's WITH list, that write to the outbox an event for each row
 * of the CTE `source` (columns workspace_id, type, domain_id, code, data) whose workspace has an
 * enabled endpoint taking its type, and a delivery of it to each such endpoint. Postgres runs them
 * with the statement whether or not it reads them: the events commit with the change or not at all.
 */
export function outboxCtes(source: string): string {
  return `${source}_events AS MATERIALIZED (
       SELECT nextval('webhook_messages_id_seq') AS id, s.workspace_id, s.type, s.domain_id, s.code, s.data
       FROM ${source} s
       WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.workspace_id = s.workspace_id AND e.enabled AND s.type = ANY (e.events))
     ), ${source}_messages AS (
       INSERT INTO webhook_messages (id, workspace_id, type, domain_id, code, data)
       SELECT id, workspace_id, type, domain_id, code, data FROM ${source}_events
     ), ${source}_deliveries AS (
       INSERT INTO webhook_deliveries (message_id, endpoint_id, domain_id, code)
       SELECT v.id, e.id, v.domain_id, v.code
       FROM ${source}_events v JOIN webhook_endpoints e ON e.workspace_id = v.workspace_id AND e.enabled AND v.type = ANY (e.events)
     )`;
}

/** A link row's fields an event's data holds (webhooks/body.ts renders them), from the row alias `l`. */
export const LINK_EVENT_DATA = `jsonb_build_object('domainId', l.domain_id, 'code', l.code, 'url', l.url, 'title', l.title,
  'tags', to_jsonb(l.tags), 'expiresAt', l.expires_at, 'disabled', l.disabled, 'deleted', l.deleted, 'version', l.version,
  'options', l.options, 'createdAt', l.created_at, 'archivedAt', l.archived_at)`;

/** The domain's host joined to a link's data: `LINK_EVENT_DATA || LINK_EVENT_HOST`, with domains joined as `dm`. */
export const LINK_EVENT_HOST = `jsonb_build_object('domainHost', dm.host)`;
