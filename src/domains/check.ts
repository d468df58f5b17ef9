// Looks at a domain as a browser would reach it: its CNAME chain, A and AAAA records (through the
// servers domain verification asks, DOMAIN_DNS_RESOLVERS), then a TLS handshake with its name
// (SNI) on DOMAIN_CHECK_TLS_PORT. The handshake is made only once the DNS points at the service,
// to an address of the service's: the check never connects where a workspace's records say.
// Each phase is bounded by DOMAIN_CHECK_TIMEOUT_MS; what it all means is check-rules.ts's.

import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import tls, { type DetailedPeerCertificate, type TLSSocket } from 'node:tls';
import {
  daysLeft,
  dnsVerdict,
  tlsFailure,
  tlsVerdict,
  type CertificateView,
  type DnsSeen,
  type DnsVerdict,
  type Target,
  type TlsVerdict,
} from './check-rules.ts';

export interface CheckerOptions {
  /** DOMAIN_DNS_RESOLVERS; none: the system's. */
  readonly servers: readonly string[];
  readonly targetHost: string | null;
  readonly targetAddresses: readonly string[];
  readonly tlsPort: number;
  /** PEM of authorities trusted besides the system's (DOMAIN_CHECK_CA_FILE). */
  readonly extraCa: string | null;
  readonly timeoutMs: number;
}

export interface DomainCheck {
  readonly host: string;
  readonly checkedAt: Date;
  readonly target: Target;
  readonly dns: DnsVerdict & { readonly found: DnsSeen };
  readonly tls: TlsVerdict & { readonly port: number; readonly address: string | null };
}

/** Answers that say a name has no record of that type. */
const NO_RECORD = new Set(['ENOTFOUND', 'ENODATA']);
/** CNAMEs followed at most (as resolvers do, give or take). */
const CHAIN_MAX = 8;

type Lookup = { readonly values: string[]; readonly unanswered: boolean };

async function lookup(ask: () => Promise<string[]>): Promise<Lookup> {
  try {
    return { values: await ask(), unanswered: false };
  } catch (err) {
    return { values: [], unanswered: !NO_RECORD.has((err as NodeJS.ErrnoException).code ?? '') };
  }
}

/** The CNAME chain from `host`: each name it is an alias of, in turn. */
async function cnameChain(resolver: Resolver, host: string): Promise<string[]> {
  const chain: string[] = [];
  let name = host;
  while (chain.length < CHAIN_MAX) {
    const next = (await lookup(() => resolver.resolveCname(name))).values[0]?.toLowerCase().replace(/\.$/, '');
    if (next === undefined || chain.includes(next)) break;
    chain.push(next);
    name = next;
  }
  return chain;
}

/** "Let's Encrypt, R11": the issuer's organisation and name, each once. */
function issuerOf(cert: DetailedPeerCertificate): string | null {
  const parts = [cert.issuer?.O, cert.issuer?.CN].filter((part): part is string => typeof part === 'string');
  return [...new Set(parts)].join(', ') || null;
}

function certificateView(cert: DetailedPeerCertificate, now: Date): CertificateView {
  const altNames = (cert.subjectaltname ?? '')
    .split(', ')
    .filter((entry) => entry.startsWith('DNS:') || entry.startsWith('IP Address:'))
    .map((entry) => entry.replace(/^(DNS|IP Address):/, ''));
  const validTo = new Date(cert.valid_to);
  return {
    subject: typeof cert.subject?.CN === 'string' ? cert.subject.CN : null,
    altNames,
    issuer: issuerOf(cert),
    validFrom: new Date(cert.valid_from).toISOString(),
    validTo: validTo.toISOString(),
    daysLeft: daysLeft(validTo, now),
  };
}

export class DomainChecker {
  readonly #options: CheckerOptions;
  readonly #ca: string[] | undefined;

  constructor(options: CheckerOptions) {
    this.#options = options;
    // Given a `ca`, Node trusts it alone: the system's authorities go with it.
    this.#ca = options.extraCa === null ? undefined : [...tls.getCACertificates('default'), options.extraCa];
  }

  async check(host: string): Promise<DomainCheck> {
    const { dns, target, address } = await this.#dns(host);
    const { tlsPort: port } = this.#options;
    const notChecked = tlsFailure('TLS_NOT_CHECKED', 'Not checked: the domain does not point to the service yet.');
    const tlsPart = address === null ? notChecked : await this.#tls(host, address);
    return { host, checkedAt: new Date(), target, dns, tls: { ...tlsPart, port, address } };
  }

  async #dns(host: string): Promise<{ dns: DomainCheck['dns']; target: Target; address: string | null }> {
    const { servers, timeoutMs, targetHost, targetAddresses } = this.#options;
    const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
    if (servers.length > 0) resolver.setServers([...servers]);
    // Every look-up of this check ends within the timeout: those still waiting are cancelled (unanswered).
    const deadline = setTimeout(() => resolver.cancel(), timeoutMs);
    try {
      const lookTarget = targetAddresses.length === 0 && targetHost !== null;
      const [cname, a, aaaa, targetA, targetAaaa] = await Promise.all([
        cnameChain(resolver, host),
        lookup(() => resolver.resolve4(host)),
        lookup(() => resolver.resolve6(host)),
        lookTarget ? lookup(() => resolver.resolve4(targetHost)) : undefined,
        lookTarget ? lookup(() => resolver.resolve6(targetHost)) : undefined,
      ]);
      const target: Target = {
        host: targetHost,
        addresses: lookTarget ? [...(targetA?.values ?? []), ...(targetAaaa?.values ?? [])] : [...targetAddresses],
      };
      const seen: DnsSeen = { cname, a: a.values, aaaa: aaaa.values, unanswered: a.unanswered && aaaa.unanswered };
      const verdict = dnsVerdict(host, target, seen);
      // Connected to only when they are the service's: the domain's addresses once its DNS points here.
      const address = verdict.ok ? ([...seen.a, ...seen.aaaa, ...target.addresses][0] ?? null) : null;
      return { dns: { ...verdict, found: seen }, target, address };
    } finally {
      clearTimeout(deadline);
    }
  }

  #tls(host: string, address: string): Promise<TlsVerdict> {
    const { tlsPort, timeoutMs } = this.#options;
    const socket = tls.connect({
      host: address,
      port: tlsPort,
      servername: isIP(host) === 0 ? host : undefined,
      ca: this.#ca,
      // Judged here, so that every problem is reported rather than one refusal.
      rejectUnauthorized: false,
    });
    return new Promise<TlsVerdict>((resolve) => {
      const seconds = timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`;
      const timer = setTimeout(
        () => resolve(tlsFailure('TLS_TIMEOUT', `The server at ${address} did not answer within ${seconds}.`)),
        timeoutMs,
      );
      socket.once('secureConnect', () => {
        clearTimeout(timer);
        resolve(judged(host, socket));
      });
      socket.once('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (err.code === 'ECONNREFUSED')
          resolve(tlsFailure('TLS_REFUSED', `Nothing accepted a connection on port ${tlsPort} of ${address}.`));
        else resolve(tlsFailure('TLS_HANDSHAKE_FAILED', `The TLS handshake with ${address} failed (${err.code ?? err.message}).`));
      });
    }).finally(() => socket.destroy());
  }
}

/** What a finished handshake shows of the certificate for `host`. */
function judged(host: string, socket: TLSSocket): TlsVerdict {
  const now = new Date();
  const cert = socket.getPeerCertificate(true);
  if (Object.keys(cert).length === 0) return tlsFailure('TLS_HANDSHAKE_FAILED', 'The server sent no certificate.');
  // A name the certificate does not cover is judged by checkServerIdentity below, whatever the chain.
  const reason = socket.authorizationError as Error | string | null;
  const code = reason === null ? null : typeof reason === 'string' ? reason : ((reason as NodeJS.ErrnoException).code ?? reason.message);
  const chainError = code === 'ERR_TLS_CERT_ALTNAME_INVALID' ? null : code;
  const covers = tls.checkServerIdentity(host, cert) === undefined;
  return tlsVerdict(host, { certificate: certificateView(cert, now), chainError, covers }, now);
}
