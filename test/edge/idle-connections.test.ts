// closeIdleConnections (src/edge/idle-connections.ts) against node:http over real sockets: a
// request read on a connection whose response before it has ended but is not yet flushed is in
// flight, and its connection is not closed; node's own rule closes it.

import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { spareAnsweringConnections } from '../../src/edge/idle-connections.ts';

/** More than loopback's socket buffers hold: the response stays ended and unflushed while the client reads nothing. */
const BIG = 64 * 1024 * 1024;

/**
 * A server whose /big answers BIG bytes at once and whose /slow answers after `slowMs`; a client
 * sends both in one write (pipelined) and reads nothing. Resolves once /slow is in flight behind
 * /big's ended response, with the server's side of the connection.
 */
async function pipelinedBehindEnded(
  t: TestContext,
  spare: boolean,
): Promise<{ server: Server; client: Socket; socket: Socket; answered: Promise<boolean> }> {
  let slowAnswered: (done: boolean) => void = () => {};
  const answered = new Promise<boolean>((resolve) => {
    slowAnswered = resolve;
  });
  let inFlight: (socket: Socket) => void = () => {};
  const slowIn = new Promise<Socket>((resolve) => {
    inFlight = resolve;
  });
  let big: ServerResponse | null = null;
  const server = createServer((req, res) => {
    if (req.url === '/big') {
      big = res;
      res.end(Buffer.alloc(BIG));
      return;
    }
    inFlight(req.socket);
    setTimeout(() => {
      // Queued behind /big's response, it has no socket of its own yet: it is gone if its connection is.
      slowAnswered(!res.destroyed && !req.socket.destroyed);
      res.end('slow');
    }, 300);
  });
  if (spare) spareAnsweringConnections(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  const client = connect(port, '127.0.0.1');
  t.after(() => client.destroy());
  client.pause();
  client.write('GET /big HTTP/1.1\r\nHost: a\r\n\r\nGET /slow HTTP/1.1\r\nHost: a\r\n\r\n');
  const socket = await slowIn;
  // /big's response has ended (res.end() returned) and waits for the client to read it.
  await sleep(50);
  const ended = big as ServerResponse | null;
  assert.deepEqual([ended?.writableEnded, ended?.writableFinished], [true, false], "/big's response ended, not flushed");
  return { server, client, socket, answered };
}

test('a request in flight behind an ended, unflushed response keeps its connection through closeIdleConnections', async (t) => {
  const { server, client, socket, answered } = await pipelinedBehindEnded(t, true);
  server.closeIdleConnections();
  assert.equal(socket.destroyed, false, 'the connection of a request in flight was closed');
  assert.equal(await answered, true, 'the request in flight was answered');
  // The client reads both answers, /slow's last.
  let tail = '';
  client.on('data', (data: Buffer) => {
    tail = (tail + data.subarray(-64).toString('latin1')).slice(-64);
  });
  client.resume();
  for (const deadline = Date.now() + 10_000; !tail.endsWith('\r\n\r\nslow') && Date.now() < deadline;) await sleep(20);
  assert.ok(tail.endsWith('\r\n\r\nslow'), `the client read ${JSON.stringify(tail)} last`);
});

test("node:http's own closeIdleConnections closes that connection with the request in flight (what the module above is for)", async (t) => {
  const { server, socket, answered } = await pipelinedBehindEnded(t, false);
  server.closeIdleConnections();
  assert.equal(socket.destroyed, true);
  assert.equal(await answered, false);
});

test('closeIdleConnections still closes a connection with nothing in flight and nothing owed', async (t) => {
  const server = createServer((_req, res) => res.end('ok'));
  spareAnsweringConnections(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const { port } = server.address() as AddressInfo;
  const client = connect(port, '127.0.0.1');
  t.after(() => client.destroy());
  const reply = new Promise<string>((resolve) => client.once('data', (data) => resolve(data.toString('latin1'))));
  client.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
  assert.match(await reply, /^HTTP\/1\.1 200/);
  // The response detached from the socket: the connection is between requests, nothing owed.
  await sleep(50);
  const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
  server.closeIdleConnections();
  await closed;
});
