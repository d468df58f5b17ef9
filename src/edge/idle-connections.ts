// Which connections closeIdleConnections may close. It is called by server.close(), by Fastify's
// close, and every 50 ms while the service drains (serve.ts). node:http's own destroys each
// connection whose parser is between two request messages unless the socket's response is
// unfinished, where "finished" means ended (res.end() called). A request whose body is read while
// the response before it on the same connection has ended but is not yet flushed (a client that
// sends its next request as soon as it has read the last answer; a pipelined request) waits behind
// that response: the socket's response is the ended one, and node closes the connection with the new
// request in flight. Its work goes on (a create commits) and its client gets a reset: a committed
// create left unanswered, seen in a CI run of test/process/process-lifecycle.test.ts on a busy machine.
//
// Here a connection is spared until its socket's response is flushed (writableFinished). That is
// enough: node hands the socket to the response waiting behind it in the same 'finish' listener
// that detaches the flushed one, so a request in flight always has, or waits behind, an unflushed
// response on its socket. Nothing is counted per request.

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
