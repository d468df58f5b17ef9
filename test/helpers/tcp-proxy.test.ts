// The fault proxy the outage tests rely on does what each fault says, against a real echo server.

import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { TcpProxy } from './tcp-proxy.ts';
import { until, within } from './wait.ts';

let echo: net.Server;
let echoPort: number;
const received: string[] = [];
before(async () => {
  echo = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk.toString());
      socket.write(chunk);
    });
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoPort = (echo.address() as net.AddressInfo).port;
});
after(() => new Promise<void>((resolve) => echo.close(() => resolve())));

async function proxied(t: { after(fn: () => Promise<void>): void }): Promise<TcpProxy> {
  const proxy = new TcpProxy('127.0.0.1', echoPort);
  await proxy.up();
  t.after(() => proxy.down());
  return proxy;
}

/** Connects through the proxy; what the client hears, and how its connection ended. */
async function connect(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let heard = '';
  socket.on('data', (chunk: Buffer) => (heard += chunk.toString()));
  const ended = new Promise<string>((resolve) => {
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    socket.on('close', () => resolve('closed'));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, heard: () => heard, ended };
}

async function heardWithin(client: { heard(): string }, text: string, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(5)) if (client.heard() === text) return true;
  return client.heard() === text;
}

test('pass, then latency added each way, in order', async (t) => {
  const proxy = await proxied(t);
  const client = await connect(proxy.port);
  t.after(async () => void client.socket.destroy());
  client.socket.write('a');
  assert.ok(await heardWithin(client, 'a', 1000));
  proxy.delayMs = 100;
  const sent = performance.now();
  client.socket.write('b');
  client.socket.write('c');
  assert.ok(await heardWithin(client, 'abc', 2000));
  assert.ok(performance.now() - sent >= 190, 'two legs of 100 ms');
});

test('a request chosen by its content is held back; what follows it waits behind it', async (t) => {
  const proxy = await proxied(t);
  proxy.delayRequest = (chunk) => (chunk.toString() === 'slow' ? 300 : 0);
  const client = await connect(proxy.port);
  t.after(async () => void client.socket.destroy());
  const sent = performance.now();
  client.socket.write('slow');
  await sleep(20);
  client.socket.write('+fast');
  assert.ok(await heardWithin(client, 'slow+fast', 2000), client.heard());
  assert.ok(performance.now() - sent >= 290);
});

test('black hole: the connection stays open and nothing goes through; drop-replies: the server gets it, the client hears nothing', async (t) => {
  const proxy = await proxied(t);
  const client = await connect(proxy.port);
  t.after(async () => void client.socket.destroy());
  proxy.fault = 'blackhole';
  const receivedBefore = received.length;
  client.socket.write('lost');
  await sleep(200);
  assert.equal(client.heard(), '');
  assert.equal(received.length, receivedBefore);
  assert.equal(client.socket.destroyed, false);

  proxy.fault = 'drop-replies';
  client.socket.write('one-way');
  await until('the server gets it', async () => received.includes('one-way'), 2000);
  // The server echoes it at once: in 200 ms the echo would have come through.
  await sleep(200);
  assert.equal(client.heard(), '');
});

test('refuse resets each new connection; reset() cuts open ones; down() refuses, up() comes back on the same port', async (t) => {
  const proxy = await proxied(t);
  const open = await connect(proxy.port);
  proxy.fault = 'refuse';
  // Reset as soon as it is accepted: the client sees it while connecting or just after.
  const refused = await within(
    'the new connection is reset',
    connect(proxy.port).then(
      (client) => client.ended,
      (err: NodeJS.ErrnoException) => err.code,
    ),
    2000,
  );
  assert.match(String(refused), /ECONNRESET|closed/);
  assert.equal(open.socket.destroyed, false, 'refuse leaves open connections alone');
  proxy.reset();
  assert.match(await within('the open connection is cut', open.ended, 2000), /ECONNRESET|closed/);

  proxy.fault = 'pass';
  const port = proxy.port;
  await proxy.down();
  await assert.rejects(connect(port), /ECONNREFUSED/);
  await proxy.up();
  assert.equal(proxy.port, port);
  const back = await connect(port);
  t.after(async () => void back.socket.destroy());
  back.socket.write('back');
  assert.ok(await heardWithin(back, 'back', 1000));
});
