// TRUST_PROXY as a rule: which proxies' X-Forwarded-For names the client (pure: no I/O).

import proxyAddr from '@fastify/proxy-addr';

export type TrustProxy = (address: string, hop: number) => boolean;

/** "false", "true", or addresses, CIDR ranges and loopback/linklocal/uniquelocal; throws on anything else. */
export function trustProxyRule(value: string): TrustProxy | undefined {
  if (value === 'false') return undefined;
  if (value === 'true') return () => true;
  return proxyAddr.compile(value.split(',').map((part) => part.trim()));
}
