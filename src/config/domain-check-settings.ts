// What a short domain should point to, and how GET /domains/:host/check looks (domains/check.ts).
// Part of SETTINGS (config.ts), in the order of docs/configuration.md's table.

import { isIP } from 'node:net';
import { Type } from 'typebox';
import { commaList, isReadableFile, optional, type Settings } from './schema.ts';

/** A DNS name a CNAME may point to: letters, digits, hyphens, at least two labels. */
function isTargetHost(raw: string): boolean {
  return /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.?$/i.test(raw) && isIP(raw) === 0;
}

/** BASE_URL's host when it is a DNS name (not an IP address, not localhost). */
function baseHost({ baseUrl }: { readonly baseUrl: string }): string | undefined {
  const host = new URL(baseUrl).hostname;
  return isTargetHost(host) ? host : undefined;
}

export const DOMAIN_CHECK_SETTINGS = {
  domainTargetHost: {
    env: 'DOMAIN_TARGET_HOST',
    schema: Type.Decode(optional(Type.Refine(Type.String(), isTargetHost)), (host) => host?.toLowerCase().replace(/\.$/, '')),
    fallback: baseHost,
    expected: 'a host name such as edge.example.net',
    shownDefault: "`BASE_URL`'s host (unless it is an IP address or `localhost`)",
    doc:
      "the host name a workspace's short domain should be a CNAME of: the service's public name (its load balancer's). " +
      '`GET /domains/:host/check` says whether it is, and shows the record to set',
  },
  domainTargetAddresses: {
    env: 'DOMAIN_TARGET_ADDRESSES',
    schema: commaList((item) => isIP(item) !== 0, 16),
    expected: 'a comma-separated list of up to 16 IP addresses',
    doc:
      "the service's public IPv4 and IPv6 addresses, for the A and AAAA records of a domain that cannot be a CNAME (the root of a " +
      'zone); unset: those of `DOMAIN_TARGET_HOST`, looked up at each check',
  },
  domainCheckTlsPort: {
    env: 'DOMAIN_CHECK_TLS_PORT',
    schema: Type.Integer({ minimum: 1, maximum: 65_535, default: 443 }),
    doc: 'the port the check of a domain connects to, with TLS, to read its certificate',
  },
  domainCheckCaFile: {
    env: 'DOMAIN_CHECK_CA_FILE',
    schema: optional(Type.Refine(Type.String(), isReadableFile)),
    expected: 'the path of a readable PEM file',
    doc: "certificates (PEM) of authorities the check trusts besides the system's: an internal CA, or a staging one; read at start-up",
  },
  domainCheckTimeoutMs: {
    env: 'DOMAIN_CHECK_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 100, maximum: 30_000, default: 3000 }),
    doc: 'how long the check waits for DNS answers, and then for the TLS handshake: a server that does not answer is reported so',
  },
  domainChecksPerMinute: {
    env: 'DOMAIN_CHECKS_PER_MINUTE',
    schema: Type.Integer({ minimum: 1, maximum: 10_000, default: 6 }),
    doc: 'checks of its domains a workspace may run per minute, across all instances (more: 429 `DOMAIN_CHECK_RATE_LIMITED`)',
  },
} satisfies Settings;
