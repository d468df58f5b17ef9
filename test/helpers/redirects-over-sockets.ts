// Redirect requests of the tests go over real sockets, through the fast path (src/edge/fast-path.ts),
// not through Fastify's inject(): app.inject() of a GET or HEAD of one path segment, with no body
// and no made-up remote address, is sent by node:http's client over a TCP connection to a listener
// of the test's own, whose connections are given to the app's server as if it had accepted them.
// The answer comes back in inject()'s shape. With FAST_PATH=false the same connections reach
// node:http's request listener; an app that is not built yet or closing still answers.

import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

const REDIRECT = /^\/[^/?#]+(?:\?[^#]*)?$/;

interface Answer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Makes `app.inject()` send redirect requests over sockets; returns the clean-up. */
export async function redirectsOverSockets(app: FastifyInstance): Promise<() => Promise<void>> {
  const listener = net.createServer((socket) => app.server.emit('connection', socket));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const inject = app.inject.bind(app) as (options: InjectOptions | string) => Promise<LightMyRequestResponse>;

  const send = (options: InjectOptions, path: string): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const headers = Object.fromEntries(Object.entries(options.headers ?? {}).filter(([, v]) => v !== undefined)) as Record<
        string,
        string
      >;
      const req = request({ host: '127.0.0.1', port, agent, method: options.method ?? 'GET', path, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });

  const overSocket = (options: InjectOptions | string): Promise<LightMyRequestResponse> => {
    const opts: InjectOptions = typeof options === 'string' ? { url: options } : options;
    const path = typeof opts.url === 'string' ? opts.url : undefined;
    const method = (opts.method ?? 'GET').toUpperCase();
    const redirect =
      path !== undefined &&
      REDIRECT.test(path) &&
      (method === 'GET' || method === 'HEAD') &&
      opts.payload === undefined &&
      opts.body === undefined &&
      opts.remoteAddress === undefined &&
      opts.query === undefined &&
      listener.listening;
    if (!redirect) return inject(opts);
    return send(opts, path).then(shapedLikeInject);
  };
  (app as { inject: unknown }).inject = overSocket;

  return async () => {
    agent.destroy();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  };
}

/** What the tests read of inject()'s answers. */
function shapedLikeInject(answer: Answer): LightMyRequestResponse {
  return {
    statusCode: answer.statusCode,
    headers: answer.headers,
    body: answer.body,
    payload: answer.body,
    json: () => JSON.parse(answer.body) as unknown,
  } as unknown as LightMyRequestResponse;
}
