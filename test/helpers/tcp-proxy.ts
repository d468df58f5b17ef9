// A TCP proxy in front of a real server, that a test can take down (refusing connections and
// cutting the open ones) and bring back on the same port: an outage without touching the server.

import net from 'node:net';

export class TcpProxy {
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<net.Socket>();
  #server: net.Server | null = null;
  #port = 0;

  constructor(targetHost: string, targetPort: number) {
    this.#target = { host: targetHost, port: targetPort };
  }

  get port(): number {
    return this.#port;
  }

  /** Added to every chunk, each way, in order: a slow network. */
  delayMs = 0;

  async up(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.#target);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      if (this.delayMs === 0) client.pipe(upstream).pipe(client);
      else {
        forwardLate(client, upstream, this.delayMs);
        forwardLate(upstream, client, this.delayMs);
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, '127.0.0.1', () => resolve());
    });
    this.#port = (server.address() as net.AddressInfo).port;
    this.#server = server;
  }

  /** Refuses new connections and resets the open ones. */
  async down(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    for (const socket of this.#sockets) socket.resetAndDestroy();
    this.#sockets.clear();
    if (server !== null) await new Promise((resolve) => server.close(resolve));
  }
}

function forwardLate(from: net.Socket, to: net.Socket, delayMs: number): void {
  from.on('data', (chunk: Buffer) => {
    setTimeout(() => {
      if (!to.destroyed) to.write(chunk);
    }, delayMs);
  });
}

/** A connection string that goes through the proxy instead of straight to Postgres. */
export function throughProxy(databaseUrl: string, proxy: TcpProxy): string {
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return url.href;
}
