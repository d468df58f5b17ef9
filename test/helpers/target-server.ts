// A link target for probe tests, on a loopback address of the test's choosing (127.0.0.2 and up
// are loopback too on Linux, so each target can be a host of its own): it records every request
// and every connection, and answers by path: /ok 200, /missing 404, /error 500, /slow never, /loop
// a redirect loop, /hop/N a chain that never ends, /no-head 405 to HEAD and 200 to GET, /switch
// whatever `switchStatus` says.

import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export class TargetServer {
  readonly requests: { method: string; path: string }[] = [];
  connections = 0;
  switchStatus = 200;
  #server: http.Server | null = null;
  #sockets = new Set<Socket>();
  #address = '';
  #port = 0;

  /** The URL of `path` on this target. */
  url(path: string): string {
    return `http://${this.#address}:${this.#port}${path}`;
  }

  async open(address = '127.0.0.1'): Promise<void> {
    const server = http.createServer((req, res) => this.#answer(req, res));
    server.on('connection', (socket) => {
      this.connections++;
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, address, resolve));
    this.#address = address;
    this.#port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  async close(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    if (server === null) return;
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const method = req.method ?? '';
    const path = req.url ?? '';
    this.requests.push({ method, path });
    const hop = /^\/hop\/(\d+)$/.exec(path);
    if (path === '/ok') res.writeHead(200).end('fine');
    else if (path === '/missing') res.writeHead(404).end();
    else if (path === '/error') res.writeHead(500).end();
    else if (path === '/slow')
      return; // never answered: the probe's timeout ends it
    else if (path === '/loop') res.writeHead(302, { location: '/loop-back' }).end();
    else if (path === '/loop-back') res.writeHead(301, { location: this.url('/loop') }).end();
    else if (hop !== null) res.writeHead(307, { location: `/hop/${Number(hop[1]) + 1}` }).end();
    else if (path === '/no-head') res.writeHead(method === 'HEAD' ? 405 : 200).end(method === 'HEAD' ? undefined : 'x'.repeat(100_000));
    else if (path === '/switch') res.writeHead(this.switchStatus).end();
    else res.writeHead(404).end();
  }
}
