// Who a request comes from, for per-client limits. Behind a load balancer the socket's peer is the
// balancer: TRUST_PROXY names the proxies whose X-Forwarded-For is believed (Fastify gets the
// same rule, so request.ip agrees). An IPv6 client is its /64: one subscriber is usually given a
// whole /64, and could otherwise take a fresh address for every request.

import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import ipaddr from 'ipaddr.js';

export type TrustProxy = (address: string, hop: number) => boolean;

/** TRUST_PROXY's value as a rule: "false", "true", or addresses, CIDR ranges and loopback/linklocal/uniquelocal. */
export function trustProxyRule(value: string): TrustProxy | undefined {
  if (value === 'false') return undefined;
  if (value === 'true') return () => true;
  return proxyAddr.compile(value.split(',').map((part) => part.trim()));
}

/** Throws with a reason if `value` is not a TRUST_PROXY setting. */
export function checkTrustProxy(value: string): void {
  trustProxyRule(value);
}

export function clientAddress(req: IncomingMessage, trust: TrustProxy | undefined): string {
  const address = trust === undefined ? (req.socket.remoteAddress ?? '') : proxyAddr(req, trust);
  return clientKey(address);
}

/** An IPv4 address as it is (IPv4-mapped IPv6 included); an IPv6 address as its /64 prefix. */
export function clientKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const prefix = (ip as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}
