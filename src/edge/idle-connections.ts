// Which connections closeIdleConnections may close (server.close(), Fastify's close, and every
// 50 ms while the service drains: serve.ts). node:http's own rule may close a connection whose
// next request waits behind an answer that has ended but is not yet flushed, resetting a request
// whose work goes on; here a connection is spared until its socket's response is flushed
// (writableFinished). Why that suffices: docs/architecture.md#shutdown-drains.

import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** node:http's list of a server's connections, made when it listens (lib/_http_server.js kConnections). */
interface ConnectionsList {
  idle(): { socket: Socket }[];
}

/** The response a socket is writing or will write next (node:http's socket._httpMessage). */
function responseOf(socket: Socket): ServerResponse | null | undefined {
  return (socket as unknown as Record<string, ServerResponse | null | undefined>)['_httpMessage'];
}

/** Makes `server.closeIdleConnections` close only those of node's idle connections whose response, if any, is flushed. */
export function spareAnsweringConnections(server: Server): void {
  const nodeCloseIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {
    const symbol = Object.getOwnPropertySymbols(server).find((s) => s.description === 'http.server.connections');
    const connections = symbol === undefined ? undefined : (server as unknown as Record<symbol, ConnectionsList | undefined>)[symbol];
    if (connections === undefined) {
      nodeCloseIdle();
      return;
    }
    for (const { socket } of connections.idle()) {
      const response = responseOf(socket);
      if (response === null || response === undefined || response.writableFinished) socket.destroy();
    }
  };
}
