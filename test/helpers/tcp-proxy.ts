// A TCP fault proxy in front of a real server: the network faults a test injects without touching
// the server. Every setting takes effect at once, on open connections too:
//   - delayMs: latency added to every chunk, each way (in order);
//   - delayRequest: extra latency for a chunk going to the server, chosen by its content;
//   - fault 'blackhole': connections stay open, nothing goes through either way;
//   - fault 'drop-replies': requests reach the server, its replies are thrown away;
//   - fault 'refuse': each new connection is reset as soon as it is accepted (a server that
//     refuses clients while the port stays taken); open connections are left alone (reset() cuts them);
//   - reset(): the open connections are reset (new ones are accepted);
//   - down(): new connections are refused and the open ones reset; up() brings it back on the same port.

import net from 'node:net';

export type ProxyFault = 'pass' | 'blackhole' | 'drop-replies' | 'refuse';

export class TcpProxy {
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<net.Socket>();
  #server: net.Server | null = null;
  #port = 0;

  /** Added to every chunk, each way, in order: a slow network. */
  delayMs = 0;
  /** Added to a chunk on its way to the server: a server slow at some commands. */
  delayRequest: (chunk: Buffer) => number = () => 0;
  fault: ProxyFault = 'pass';

  constructor(targetHost: string, targetPort: number) {
    this.#target = { host: targetHost, port: targetPort };
  }

  get port(): number {
    return this.#port;
  }

  async up(): Promise<void> {
    const server = net.createServer((client) => {
      if (this.fault === 'refuse') {
        client.on('error', () => {});
        client.resetAndDestroy();
        return;
      }
      const upstream = net.connect(this.#target);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      this.#forward(client, upstream, true);
      this.#forward(upstream, client, false);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, '127.0.0.1', () => resolve());
    });
    this.#port = (server.address() as net.AddressInfo).port;
    this.#server = server;
  }

  /** Resets the open connections; new ones are let through. */
  reset(): void {
    for (const socket of this.#sockets) socket.resetAndDestroy();
    this.#sockets.clear();
  }

  /** Refuses new connections and resets the open ones. */
  async down(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    this.reset();
    if (server !== null) await new Promise((resolve) => server.close(resolve));
  }

  /**
   * Forwards `from` to `to` with the settings in force when each chunk arrives, keeping the order:
   * held chunks wait in one queue drained by one timer (a timer per chunk could fire out of order,
   * Node rounding their delays to whole milliseconds).
   */
  #forward(from: net.Socket, to: net.Socket, toServer: boolean): void {
    const held: { due: number; chunk: Buffer }[] = [];
    let lastDue = 0;
    let timer: NodeJS.Timeout | null = null;
    const send = (chunk: Buffer) => {
      if (!to.destroyed) to.write(chunk);
    };
    const drain = () => {
      timer = null;
      const now = performance.now();
      while (held.length > 0 && (held[0]?.due ?? 0) <= now) send((held.shift() as { chunk: Buffer }).chunk);
      const next = held[0];
      if (next !== undefined) timer = setTimeout(drain, Math.ceil(next.due - now));
    };
    from.on('data', (chunk: Buffer) => {
      if (this.fault === 'blackhole' || (this.fault === 'drop-replies' && !toServer)) return;
      const now = performance.now();
      const due = Math.max(now + this.delayMs + (toServer ? this.delayRequest(chunk) : 0), lastDue);
      lastDue = due;
      if (held.length === 0 && due <= now) return send(chunk);
      held.push({ due, chunk });
      timer ??= setTimeout(drain, Math.ceil(due - now));
    });
    from.on('close', () => {
      if (timer !== null) clearTimeout(timer);
    });
  }
}

/** A connection string that goes through the proxy instead of straight to the server. */
export function throughProxy(serverUrl: string, proxy: TcpProxy): string {
  const url = new URL(serverUrl);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return url.href;
}

/**
 * A proxy in front of the server of `serverUrl`, up, and taken down when the test ends; `url`
 * connects through it.
 */
export async function proxyInFront(t: { after(fn: () => unknown): void }, serverUrl: string): Promise<{ proxy: TcpProxy; url: string }> {
  const { hostname, port } = new URL(serverUrl);
  const proxy = new TcpProxy(hostname, Number(port || 5432));
  await proxy.up();
  t.after(() => proxy.down());
  return { proxy, url: throughProxy(serverUrl, proxy) };
}
