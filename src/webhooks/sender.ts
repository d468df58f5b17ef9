// One webhook request: a POST of the body, signed by the Standard Webhooks scheme (the
// `standardwebhooks` library: webhook-id, webhook-timestamp, and webhook-signature with HMAC-SHA256
// under each of the endpoint's secrets, space-separated, during a rotation's overlap), bounded by
// WEBHOOK_TIMEOUT_MS from connecting to the end of the answer. It is a request this service makes,
// so unless WEBHOOK_ALLOW_PRIVATE it connects only to public addresses: the URL was checked as a
// link target when it was saved, and each connection's DNS answers are checked again here (a name
// that resolves to 127.0.0.1 or 10.0.0.0/8 later is refused, not followed). Redirects are not followed.
// What it reports is coarse (docs/security.md): the status, the time, and a class of failure, never
// the answer's body or headers nor an error's text, so the delivery log probes no receiver.

import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import { isPublicIp } from '../core/target-policy.ts';

export interface SendOptions {
  readonly timeoutMs: number;
  readonly allowPrivate: boolean;
}

/** What came back: an HTTP status, or why there was none. */
export interface SendResult {
  readonly status: number | null;
  /** `HTTP <status>` for an answer outside 2xx, else one of FAILURES; null: delivered. */
  readonly error: string | null;
  readonly latencyMs: number;
}

export interface SignedMessage {
  readonly url: string;
  readonly msgId: string;
  readonly secrets: readonly string[];
  readonly body: string;
}

/** Why a try got no answer, as coarse as the log shows it. */
export const FAILURES = {
  invalidUrl: 'invalid URL',
  notPublic: 'no public address (WEBHOOK_ALLOW_PRIVATE is off)',
  dns: 'DNS lookup failed',
  refused: 'connection refused',
  reset: 'connection reset',
  tls: 'TLS error',
  timeout: 'timeout (WEBHOOK_TIMEOUT_MS)',
  network: 'network error',
} as const;

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_|HOSTNAME_MISMATCH|EPROTO$)/;

/**
 * The class of a request's failure. A name that resolves to no public address reads as one that
 * does not resolve: the log does not tell which internal names exist.
 */
export function failureOf(err: NodeJS.ErrnoException): string {
  const code = err.code ?? '';
  if (code === 'EPRIVATEADDRESS' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') return FAILURES.dns;
  if (code === 'ECONNREFUSED') return FAILURES.refused;
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED') return FAILURES.reset;
  if (code === 'ETIMEDOUT') return FAILURES.timeout;
  if (TLS_CODES.test(code)) return FAILURES.tls;
  return FAILURES.network;
}

export const USER_AGENT = 'shortener-webhooks/1 (+https://www.standardwebhooks.com/)';

/** The headers of a signed message, at `now`. */
export function signedHeaders(message: SignedMessage, now: Date): Record<string, string> {
  const signature = message.secrets.map((secret) => new Webhook(secret).sign(message.msgId, now, message.body)).join(' ');
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': message.msgId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * dns.lookup that answers only public addresses; an error (code EPRIVATEADDRESS) if the name has
 * none. Target health probes (health/prober.ts) connect through it too.
 */
export function publicLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err !== null) return callback(err, []);
    const allowed = addresses.filter((address) => isPublicIp(address.address));
    if (allowed.length === 0) {
      const refused: NodeJS.ErrnoException = new Error(`${hostname} resolves to no public address (WEBHOOK_ALLOW_PRIVATE is off)`);
      refused.code = 'EPRIVATEADDRESS';
      return callback(refused, []);
    }
    if (options.all === true) return callback(null, allowed);
    const first = allowed[0] as LookupAddress;
    callback(null, first.address, first.family);
  });
}

/** Whether a URL's hostname is an IP address (no lookup to check) that is not public. */
export function isNonPublicLiteral(hostname: string): boolean {
  const literal = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return /^[\d.]+$|:/.test(literal) && !isPublicIp(literal);
}

export class WebhookSender {
  readonly #options: SendOptions;
  readonly #agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
  };

  constructor(options: SendOptions) {
    this.#options = options;
  }

  /** Sends `message`, signed now; never rejects. */
  send(message: SignedMessage): Promise<SendResult> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      const url = URL.parse(message.url);
      if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
        resolve({ status: null, error: FAILURES.invalidUrl, latencyMs: 0 });
        return;
      }
      if (!this.#options.allowPrivate && isNonPublicLiteral(url.hostname)) {
        resolve({ status: null, error: FAILURES.notPublic, latencyMs: 0 });
        return;
      }
      const body = Buffer.from(message.body);
      const headers = { ...signedHeaders(message, new Date()), 'content-length': String(body.length) };
      const client = url.protocol === 'https:' ? https : http;
      let settled = false;
      const finish = (result: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const request = client.request(url, {
        method: 'POST',
        headers,
        agent: this.#agents[url.protocol],
        ...(this.#options.allowPrivate ? {} : { lookup: publicLookup }),
      });
      const timer = setTimeout(() => {
        finish({ status: null, error: FAILURES.timeout, latencyMs: latency() });
        request.destroy();
      }, this.#options.timeoutMs);
      request.on('error', (err) => finish({ status: null, error: failureOf(err), latencyMs: latency() }));
      request.on('response', (response) => {
        // Read to the end (the connection is kept for the next try), and thrown away.
        response.resume();
        response.on('error', (err) => finish({ status: null, error: failureOf(err), latencyMs: latency() }));
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          finish({ status, error: ok ? null : `HTTP ${status}`, latencyMs: latency() });
        });
      });
      request.end(body);
    });
  }

  close(): void {
    for (const agent of Object.values(this.#agents)) agent.destroy();
  }
}
