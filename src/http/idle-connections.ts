// Which connections closeIdleConnections may close. It is called by server.close(), by Fastify's
// close, and every 50 ms while the service drains (serve.ts). node:http's own destroys each
// connection whose parser is between two request messages unless the socket's response is
// unfinished. A request whose body is read while the response before it on the same connection has
// ended (res.end()) but is not yet flushed and detached (a client that sends its next request as
// soon as it has read the last answer; a pipelined request) waits behind that response: the socket's
// response is the ended one, and node closes the connection with the new request in flight. Its work
// goes on (a create commits) and its client gets a reset: a committed create left unanswered, seen
// in a CI run of test/process-lifecycle.test.ts on a busy machine. Here a connection is spared as
// well while any request read on it is unanswered.

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

const IN_FLIGHT = Symbol('requests in flight');

type Counted = Socket & { [IN_FLIGHT]?: number };

interface ConnectionsList {
  idle(): { socket: Counted }[];
}

/** One more request in flight on its connection, until its response closes. */
function count(req: IncomingMessage, res: ServerResponse): void {
  const socket = req.socket as Counted;
  socket[IN_FLIGHT] = (socket[IN_FLIGHT] ?? 0) + 1;
  res.once('close', () => {
    socket[IN_FLIGHT] = (socket[IN_FLIGHT] ?? 1) - 1;
  });
}

/**
 * Counts the requests in flight on each connection (from the moment node:http has read one until its
 * response closes), and makes closeIdleConnections close only those of node's idle connections with
 * none: node spares a connection whose socket's response is unfinished, this one also a connection
 * whose request waits behind an ended response.
 */
export function spareAnsweringConnections(server: Server): void {
  // Every request node:http answers comes through one of these.
  server.prependListener('request', count);
  server.prependListener('checkExpectation', count);
  const nodeCloseIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {
    // node:http's list of connections, made when the server listens.
    const symbol = Object.getOwnPropertySymbols(server).find((s) => s.description === 'http.server.connections');
    const connections = symbol === undefined ? undefined : (server as unknown as Record<symbol, ConnectionsList | undefined>)[symbol];
    if (connections === undefined) {
      nodeCloseIdle();
      return;
    }
    for (const { socket } of connections.idle()) if ((socket[IN_FLIGHT] ?? 0) === 0) socket.destroy();
  };
}
