// A real TLS terminator in front of a service for a test: Debian's HAProxy, on port 443 of a loopback
// address of its own (127.x.y.z: clients that build `https://<host>/...` with no port can reach it,
// and parallel tests do not meet), with a certificate signed by a test authority made here with
// the openssl CLI, forwarding plain HTTP to the service. A second address answers with a
// certificate of another authority: what a client that really verifies must refuse.

import { execFileSync, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './wait.ts';

export interface TlsTerminator {
  /** The address HAProxy answers on at 443 with a certificate of the authority (`ca`). */
  readonly host: string;
  /** The address it answers on at 443 with a certificate of another authority. */
  readonly rogueHost: string;
  /** The test authority's certificate (PEM): what a client is to trust. */
  readonly ca: string;
  close(): Promise<void>;
}

/** A loopback address of a test's own, for a terminator to take port 443 on. */
export function loopbackHost(): string {
  return `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(2, 255)}`;
}

const openssl = (args: readonly string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });

/** An authority (`<name>.ca.pem`) and a certificate it signs for the IP address `ip` (`<name>.pem`: certificate and key, as HAProxy takes them). */
function authorityAndServer(dir: string, name: string, ip: string): void {
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.ca.key`], dir);
  openssl(
    ['req', '-x509', '-new', '-key', `${name}.ca.key`, '-subj', `/CN=${name} test authority`, '-days', '2', '-out', `${name}.ca.pem`],
    dir,
  );
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`], dir);
  openssl(['req', '-new', '-key', `${name}.key`, '-subj', `/CN=${ip}`, '-out', `${name}.csr`], dir);
  writeFileSync(join(dir, `${name}.ext`), `subjectAltName=IP:${ip},DNS:localhost\n`);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${name}.ca.pem`,
      '-CAkey',
      `${name}.ca.key`,
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.crt`,
    ],
    dir,
  );
  writeFileSync(join(dir, `${name}.pem`), readFileSync(join(dir, `${name}.crt`), 'utf8') + readFileSync(join(dir, `${name}.key`), 'utf8'));
}

/** HAProxy terminating TLS on `host`:443 (and a rogue address), forwarding to 127.0.0.1:`backendPort`. */
export async function startTlsTerminator(host: string, backendPort: number): Promise<TlsTerminator> {
  const dir = mkdtempSync(join(tmpdir(), 'shortener-tls-'));
  const rogueHost = host.replace(/\.\d+$/, (last) => `.${(Number(last.slice(1)) % 253) + 2}`);
  authorityAndServer(dir, 'good', host);
  authorityAndServer(dir, 'rogue', rogueHost);
  writeFileSync(
    join(dir, 'haproxy.cfg'),
    [
      'global',
      '  maxconn 256',
      'defaults',
      '  mode http',
      '  option forwardfor',
      '  timeout connect 2s',
      '  timeout client 10s',
      '  timeout server 10s',
      'frontend good',
      `  bind ${host}:443 ssl crt ${join(dir, 'good.pem')}`,
      '  default_backend service',
      'frontend rogue',
      `  bind ${rogueHost}:443 ssl crt ${join(dir, 'rogue.pem')}`,
      '  default_backend service',
      'backend service',
      `  server service 127.0.0.1:${backendPort}`,
      '',
    ].join('\n'),
  );
  const child = spawn('haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await until(`HAProxy on ${host}:443 (port 443 needs root or CAP_NET_BIND_SERVICE)`, async () => {
      if (child.exitCode !== null) throw new Error(`HAProxy exited: ${stderr}`);
      return (await accepts(host)) && (await accepts(rogueHost));
    });
  } catch (err) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    host,
    rogueHost,
    ca: readFileSync(join(dir, 'good.ca.pem'), 'utf8'),
    async close() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function accepts(host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port: 443 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
