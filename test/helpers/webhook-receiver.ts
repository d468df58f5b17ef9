// A real webhook receiver on 127.0.0.1 for tests: it records every request (headers, body, when),
// checks each signature against the endpoint's secrets with the standardwebhooks library and,
// independently, with node:crypto's HMAC, and answers as the test says: 2xx, 500, slowly, or not at
// all (closed, then opened again on the same port).

import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  readonly id: string;
  readonly timestamp: string;
  readonly signature: string;
  readonly body: string;
  readonly event: { type: string; timestamp: string; data: Record<string, unknown> };
  readonly at: number;
  /** What this receiver answered (0: it gave no answer: it held it past the sender's timeout), and when. */
  answered: number;
  answeredAt: number;
}

export type Behaviour = { status: number; delayMs?: number };

export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Secrets a signature must verify with (each one, when several are set). */
  secrets: string[] = [];
  /** How the next requests are answered; `answer` overrides it per request. */
  behaviour: Behaviour = { status: 204 };
  answer: ((request: Received) => Behaviour | undefined) | undefined;
  /** Signatures that did not verify. */
  readonly badSignatures: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  #server: http.Server | null = null;
  #port = 0;
  #sockets = new Set<import('node:net').Socket>();

  get url(): string {
    return `http://127.0.0.1:${this.#port}/hooks`;
  }

  async open(): Promise<void> {
    const server = http.createServer((req, res) => void this.#handle(req, res));
    server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(this.#port, '127.0.0.1', resolve));
    this.#port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  /** Stops listening and drops every connection: the port refuses from now on. */
  async close(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    if (server === null) return;
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Distinct webhook-ids received, and those received more than once. */
  ids(): { unique: Set<string>; repeated: string[] } {
    const seen = new Set<string>();
    const repeated: string[] = [];
    for (const r of this.received) {
      if (seen.has(r.id)) repeated.push(r.id);
      seen.add(r.id);
    }
    return { unique: seen, repeated };
  }

  /** The first receipt of each event answered 2xx, in the order they were answered. */
  accepted(): Received[] {
    const seen = new Set<string>();
    return this.received
      .filter((r) => r.answered >= 200 && r.answered < 300)
      .sort((a, b) => a.answeredAt - b.answeredAt)
      .filter((r) => !seen.has(r.id) && seen.add(r.id));
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      const header = (name: string) => String(req.headers[name] ?? '');
      const received: Received = {
        id: header('webhook-id'),
        timestamp: header('webhook-timestamp'),
        signature: header('webhook-signature'),
        body,
        event: JSON.parse(body) as Received['event'],
        at: Date.now(),
        answered: 0,
        answeredAt: 0,
      };
      this.#verify(received);
      this.received.push(received);
      const behaviour = this.answer?.(received) ?? this.behaviour;
      if (behaviour.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
      if (res.destroyed) return;
      received.answered = behaviour.status;
      received.answeredAt = performance.now();
      res.writeHead(behaviour.status, { 'content-type': 'text/plain' }).end(behaviour.status >= 300 ? 'receiver says no' : '');
    } finally {
      this.inFlight--;
    }
  }

  #verify(received: Received): void {
    const headers = { 'webhook-id': received.id, 'webhook-timestamp': received.timestamp, 'webhook-signature': received.signature };
    const signatures = received.signature.split(' ');
    for (const secret of this.secrets) {
      let libraryOk = true;
      try {
        new Webhook(secret).verify(received.body, headers);
      } catch {
        libraryOk = false;
      }
      // By hand, as a receiver without the library would: HMAC-SHA256 of "id.timestamp.body" under the base64 key.
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      const expected = createHmac('sha256', key).update(`${received.id}.${received.timestamp}.${received.body}`).digest();
      const handOk = signatures.some((signature) => {
        const given = Buffer.from(signature.replace(/^v1,/, ''), 'base64');
        return signature.startsWith('v1,') && given.length === expected.length && timingSafeEqual(given, expected);
      });
      if (!libraryOk || !handOk) this.badSignatures.push(`${received.id} (library ${libraryOk}, by hand ${handOk})`);
    }
  }
}
