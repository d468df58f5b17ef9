// Certificates made by openssl for a test, in a temporary directory: an authority of the test's own
// and certificates it signs for given names and dates (one EC key for all). What the domain
// check (src/domains/check.ts) is shown by real TLS servers on loopback.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KeyPair {
  readonly key: string;
  readonly cert: string;
}

export interface TestAuthority extends KeyPair {
  /** The authority's certificate, as a file DOMAIN_CHECK_CA_FILE can name. */
  readonly certFile: string;
  /** A certificate it signs for `names` (subjectAltName DNS), valid from `from` to `to` (default: yesterday to 90 days on). */
  issue(names: readonly string[], dates?: { from: Date; to: Date }): KeyPair;
  remove(): void;
}

const openssl = (args: readonly string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });

/** 20260101000000Z, as `openssl ca -startdate` takes it. */
const stamp = (date: Date) => `${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
const DAY_MS = 86_400_000;

export function createAuthority(name = 'Test Authority'): TestAuthority {
  const dir = mkdtempSync(join(tmpdir(), 'shortener-ca-'));
  const read = (file: string) => readFileSync(join(dir, file), 'utf8');
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key'], dir);
  openssl(['req', '-x509', '-new', '-key', 'ca.key', '-subj', `/O=${name}/CN=${name}`, '-days', '30', '-out', 'ca.pem'], dir);
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '1000\n');
  writeFileSync(
    join(dir, 'ca.cnf'),
    [
      '[ca]',
      'default_ca = test',
      '[test]',
      `database = ${join(dir, 'index.txt')}`,
      `new_certs_dir = ${dir}`,
      `serial = ${join(dir, 'serial')}`,
      'default_md = sha256',
      'policy = any',
      'copy_extensions = copy',
      'unique_subject = no',
      '[any]',
      'commonName = supplied',
      '',
    ].join('\n'),
  );
  // One key for every certificate: what a test looks at is the certificates.
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'leaf.key'], dir);
  let made = 0;
  const request = (names: readonly string[]) => {
    const base = `leaf${++made}`;
    const san = `subjectAltName=${names.map((host) => `DNS:${host}`).join(',')}`;
    openssl(['req', '-new', '-key', 'leaf.key', '-subj', `/CN=${names[0] ?? 'none'}`, '-addext', san, '-out', `${base}.csr`], dir);
    return base;
  };
  return {
    key: read('ca.key'),
    cert: read('ca.pem'),
    certFile: join(dir, 'ca.pem'),
    issue(names, dates = { from: new Date(Date.now() - DAY_MS), to: new Date(Date.now() + 90 * DAY_MS) }) {
      const base = request(names);
      openssl(
        [
          'ca',
          '-batch',
          '-config',
          'ca.cnf',
          '-cert',
          'ca.pem',
          '-keyfile',
          'ca.key',
          '-in',
          `${base}.csr`,
          '-out',
          `${base}.pem`,
          '-notext',
        ].concat(['-startdate', stamp(dates.from), '-enddate', stamp(dates.to)]),
        dir,
      );
      return { key: read('leaf.key'), cert: read(`${base}.pem`) };
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
