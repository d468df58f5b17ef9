// Instructions per hot redirect, counted by valgrind's callgrind: a figure that does not move with
// what else the machine's shared cores are doing (rates and CPU seconds move by a few per cent from
// run to run), so that a change of a per cent or two on the hot path can be told from noise.
//
//   node load/instructions.ts --against ../old              this checkout and another (or a comma-separated list), alternating
//   node load/instructions.ts --against ../old --rounds 3 --requests 40000 --links 20000
//   node load/instructions.ts --ruled                        plain links and links with rules, one service
//   node load/instructions.ts --ruled --options '{"clickLimit":1000000000}'   …or with these options
//   node load/instructions.ts --env REDIS_URL=redis://127.0.0.1:6379,CLICK_FLUSH_INTERVAL_MS=1000 --env-b CLICK_STREAM=redis
//                                                            this checkout with and without an env difference
//
// Each round starts the service under callgrind (collection off) on a scratch database of
// DATABASE_URL's server (the service migrates it), creates the links through POST /links/bulk,
// asks for every link and then for `--warm` more (the JIT settles), turns collection on, sends
// `--requests` GETs of links in the LRU over 8 keep-alive connections through the fast path, turns
// it off and reads the count. The same codes in the same order for every service. Analytics stay on
// (the default); the flushes are hourly, so that none falls in the window.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { RULED_OPTIONS } from './traffic.ts';
import { LOAD_CODE_SECRET } from './processes.ts';

const { values } = parseArgs({
  options: {
    against: { type: 'string' },
    ruled: { type: 'boolean', default: false },
    /** With --ruled: the links' options as JSON instead of RULED_OPTIONS (e.g. '{"clickLimit":1000000000}'). */
    options: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    requests: { type: 'string', default: '40000' },
    warm: { type: 'string', default: '40000' },
    links: { type: 'string', default: '5000' },
    /** KEY=VALUE,… set for every service (after the defaults below: REDIS_URL=… turns the Redis tier on). */
    env: { type: 'string' },
    /** KEY=VALUE,…: this checkout once more, with these set too (e.g. CLICK_STREAM=redis). */
    'env-b': { type: 'string' },
  },
});

/** KEY=VALUE,… as an object. */
function envOf(list: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of (list ?? '').split(',').filter((p) => p !== '')) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new Error(`expected KEY=VALUE, not ${pair}`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}
const SHARED_ENV = envOf(values.env);
const ROUNDS = Number(values.rounds);
const REQUESTS = Number(values.requests);
const WARM = Number(values.warm);
const LINKS = Number(values.links);
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const HERE = resolve(import.meta.dirname, '..');
const NODE = join(HERE, 'node_modules/.bin/node');
const CONNECTIONS = 8;
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

interface Variant {
  readonly label: string;
  readonly checkout: string;
  readonly options: object | undefined;
  /** Set for this service only. */
  readonly env?: Record<string, string>;
}

const variants: Variant[] = values.ruled
  ? [
      { label: 'plain links', checkout: HERE, options: undefined },
      {
        label: values.options === undefined ? 'links with rules' : `links with ${values.options}`,
        checkout: HERE,
        options: values.options === undefined ? RULED_OPTIONS : (JSON.parse(values.options) as object),
      },
    ]
  : [
      { label: 'this checkout', checkout: HERE, options: undefined },
      ...(values.against === undefined ? [] : values.against.split(',')).map((dir) => ({
        label: dir,
        checkout: resolve(dir),
        options: undefined,
      })),
      ...(values['env-b'] === undefined
        ? []
        : [{ label: values['env-b'], checkout: HERE, options: undefined, env: envOf(values['env-b']) }]),
    ];

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.error('needs valgrind (apt-get install valgrind)');
  process.exit(2);
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.href;
}

async function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => done(port));
    });
  });
}

async function until(what: string, check: () => Promise<boolean>, ms = 180_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Sends `paths` as GETs over CONNECTIONS keep-alive connections, one request in flight on each; resolves when all are answered. */
async function send(port: number, paths: readonly string[], statuses: Map<string, number>): Promise<void> {
  let next = 0;
  const one = () =>
    new Promise<void>((done, fail) => {
      const socket = net.connect(port, '127.0.0.1');
      let buffered = '';
      const ask = () => {
        if (next >= paths.length) {
          socket.end();
          return done();
        }
        const path = paths[next++] as string;
        socket.write(`GET ${path} HTTP/1.1\r\nHost: sho.rt\r\nUser-Agent: ${BROWSER}\r\nAccept-Language: en-US,en;q=0.9\r\n\r\n`);
      };
      socket.setEncoding('latin1');
      socket.on('connect', ask);
      socket.on('data', (chunk: string) => {
        buffered += chunk;
        // Redirects have no body: a head is a whole answer.
        let end = buffered.indexOf('\r\n\r\n');
        while (end !== -1) {
          const status = buffered.slice(9, 12);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          buffered = buffered.slice(end + 4);
          end = buffered.indexOf('\r\n\r\n');
          ask();
        }
      });
      socket.on('error', fail);
    });
  await Promise.all(Array.from({ length: CONNECTIONS }, one));
}

async function post(port: number, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

function callgrindControl(pid: number, ...args: string[]): void {
  const run = spawnSync('callgrind_control', [...args, String(pid)], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`callgrind_control ${args.join(' ')}: ${run.stderr}`);
}

/** Instructions per request of one service. */
async function measure(variant: Variant, round: number, order: readonly number[]): Promise<number> {
  const name = `shortener_instr_${process.pid}_${round}_${variants.indexOf(variant)}`;
  await admin(`CREATE DATABASE ${name}`);
  const port = await freePort();
  const out = join(tmpdir(), `${name}.callgrind`);
  let child: ChildProcess | undefined;
  try {
    child = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        '--instr-atstart=no',
        `--callgrind-out-file=${out}`,
        NODE,
        '--max-semi-space-size=8',
        join(variant.checkout, 'src/process/main.ts'),
      ],
      {
        env: {
          ...process.env,
          DATABASE_URL: withDatabase(ADMIN_URL, name),
          PORT: String(port),
          BASE_URL: 'https://sho.rt',
          CODE_SECRET: LOAD_CODE_SECRET,
          LOG_LEVEL: 'warn',
          NOT_FOUND_LIMIT_PER_MINUTE: '0',
          RATE_LIMIT_ENABLED: 'false',
          CREATE_REQUIRES_API_KEY: 'false',
          CLICK_FLUSH_INTERVAL_MS: '3600000',
          ANALYTICS_FLUSH_INTERVAL_MS: '3600000',
          REDIS_URL: '',
          ...SHARED_ENV,
          ...variant.env,
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    const pid = child.pid as number;
    await until('the service', async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok);
    const codes: string[] = [];
    for (let i = 0; i < LINKS; i += 1000) {
      const links = Array.from({ length: Math.min(1000, LINKS - i) }, (_, k) => ({
        url: `https://example.com/landing/${String(i + k).padStart(8, '0')}?utm_source=instructions`,
        ...(variant.options === undefined ? {} : { options: variant.options }),
      }));
      const { results } = (await post(port, '/links/bulk', { links })) as { results: { status: number; link?: { code: string } }[] };
      for (const result of results) if (result.link !== undefined) codes.push(result.link.code);
    }
    if (codes.length !== LINKS) throw new Error(`created ${codes.length} of ${LINKS} links`);
    const paths = order.map((i) => `/${codes[i % codes.length]}`);
    const statuses = new Map<string, number>();
    await send(
      port,
      codes.map((code) => `/${code}`),
      statuses,
    );
    await send(
      port,
      Array.from({ length: WARM }, (_, i) => paths[i % paths.length] as string),
      statuses,
    );
    statuses.clear();
    callgrindControl(pid, '-i', 'on');
    await send(port, paths, statuses);
    callgrindControl(pid, '-i', 'off');
    callgrindControl(pid, '-d');
    const redirects = [...statuses].filter(([s]) => s.startsWith('3')).reduce((n, [, k]) => n + k, 0);
    if (redirects !== REQUESTS) throw new Error(`${redirects} redirects of ${REQUESTS}: ${JSON.stringify([...statuses])}`);
    // The dump after -d is the file with the highest number.
    await until('the dump', async () => dumpOf(out) !== undefined, 60_000);
    return (dumpOf(out) as number) / REQUESTS;
  } finally {
    child?.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    for (const suffix of ['', '.1', '.2', '.3']) rmSync(`${out}${suffix}`, { force: true });
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

/** The instructions of the dump written by `callgrind_control -d` (file.1), once it is complete. */
function dumpOf(out: string): number | undefined {
  const file = `${out}.1`;
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  const match = /^totals: (\d+)/m.exec(text);
  return match === null ? undefined : Number(match[1]);
}

/** A fixed order of link indexes: the same requests for every service. */
function requestOrder(): number[] {
  let seed = 42;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  return Array.from({ length: REQUESTS }, () => Math.floor(random() * LINKS));
}

const order = requestOrder();
const results = new Map<string, number[]>(variants.map((v) => [v.label, []]));
for (let round = 0; round < ROUNDS; round++) {
  // Alternating which goes first, round by round.
  const sequence = round % 2 === 0 ? variants : variants.toReversed();
  for (const variant of sequence) {
    const perRequest = await measure(variant, round, order);
    results.get(variant.label)?.push(perRequest);
    console.log(`round ${round + 1}: ${variant.label}: ${Math.round(perRequest).toLocaleString('en-US')} instructions per request`);
  }
}
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const [first] = variants;
const base = median(results.get(first?.label ?? '') ?? []);
for (const variant of variants) {
  const m = median(results.get(variant.label) ?? []);
  const all = (results.get(variant.label) ?? []).map((x) => Math.round(x).toLocaleString('en-US')).join(', ');
  console.log(
    `${variant.label}: median ${Math.round(m).toLocaleString('en-US')} instructions per request (${all})${variant === first ? '' : `; ${(m / base).toFixed(4)}× ${first?.label}`}`,
  );
}
