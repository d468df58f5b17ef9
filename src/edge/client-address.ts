// Who a request comes from, for per-client limits. Behind a load balancer the socket's peer is the
// balancer: TRUST_PROXY names the proxies whose X-Forwarded-For is believed (Fastify gets the
// same rule, so request.ip agrees). An IPv6 client is its /64: one subscriber is usually given a
// whole /64, and could otherwise take a fresh address for every request.

import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import ipaddr from 'ipaddr.js';
import type { Logger } from 'pino';
import { Memo } from '../core/memo.ts';
import type { TrustProxy } from '../core/trust-proxy.ts';

/** Distinct (proxy, X-Forwarded-For) pairs whose client is remembered. */
const ADDRESSES_MAX = 20_000;

/** Reads a request's client from its peer address and X-Forwarded-For. */
export type AddressOf = (peer: string | undefined, forwardedFor: string | undefined) => string;

/**
 * The client whose 404 budget a request spends: its address (addressOfReader), an IPv6 one as its
 * /64. One reader of addresses serves both, so a request's X-Forwarded-For is read once.
 */
export function clientOfAddress(addressOf: AddressOf): AddressOf {
  return (peer, forwardedFor) => clientKey(addressOf(peer, forwardedFor));
}

/** A reader of a node:http request's peer and X-Forwarded-For (Node joins repeated fields into one string). */
export function onNodeRequest(of: AddressOf): (req: IncomingMessage) => string {
  return (req) => of(req.socket.remoteAddress, req.headers['x-forwarded-for'] as string | undefined);
}

/**
 * The client's address (the 404 budget's client, and the country for analytics): the peer, or the
 * forwarded address TRUST_PROXY believes. A forwarded address that is no IP address is not
 * believed (it would be a fresh budget for every made-up value): the peer is used instead.
 * Requests that carry X-Forwarded-For while no proxy is trusted mean every client behind that
 * proxy shares one budget: said once in the log.
 */
export function addressOfReader(trust: TrustProxy | undefined, log: Logger): AddressOf {
  let warned = false;
  if (trust === undefined) {
    return (peer = '', forwardedFor) => {
      if (!warned && forwardedFor !== undefined) {
        warned = true;
        log.warn('requests carry X-Forwarded-For but TRUST_PROXY is false: every client behind the proxy shares one 404 budget');
      }
      return peer;
    };
  }
  // proxy-addr and ipaddr parse X-Forwarded-For and every address in it (5 % of the server's CPU
  // under the analytics scenario, unmemoised: docs/performance.md#click-analytics-what-they-cost-the-hot-path);
  // the same proxies send the same clients again and again, so each (peer, field) pair is read once. The common field, one IPv4 address
  // in dotted decimal, is read without them: proxy-addr's answer for it is that address when the
  // peer is trusted (hop 0), the peer otherwise (each peer's trust remembered).
  const trusted = new Memo((peer) => trust(peer, 0), ADDRESSES_MAX);
  const read = new Memo((joined) => {
    const cut = joined.indexOf('\n');
    const peer = joined.slice(0, cut);
    // proxy-addr reads these two fields of a request, and nothing else.
    const forwarded = proxyAddr(
      { headers: { 'x-forwarded-for': joined.slice(cut + 1) }, socket: { remoteAddress: peer } } as unknown as IncomingMessage,
      trust,
    );
    return ipaddr.isValid(forwarded) ? forwarded : peer;
  }, ADDRESSES_MAX);
  return (peer = '', forwardedFor) => {
    if (forwardedFor === undefined) return peer;
    if (DOTTED_IPV4.test(forwardedFor)) return trusted.get(peer) ? forwardedFor : peer;
    return read.get(`${peer}\n${forwardedFor}`);
  };
}

/** An IPv4 address in dotted decimal, each part 0–255 without leading zeros (ipaddr reads these as proxy-addr does). */
const DOTTED_IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** Reads the host a request is for from its peer address, Host and X-Forwarded-Host. */
export type HostOf = (peer: string | undefined, host: string | undefined, forwardedHost: string | undefined) => string | undefined;

/**
 * The host a request is for: its Host, or the last X-Forwarded-Host where the peer is a proxy
 * TRUST_PROXY trusts (as Fastify's request.host reads it). Null when no proxy is trusted: the Host
 * alone decides, and the hot path reads nothing else.
 */
export function hostOfReader(trust: TrustProxy | undefined): HostOf | null {
  if (trust === undefined) return null;
  return (peer = '', host, forwardedHost) => {
    if (forwardedHost === undefined || !trust(peer, 0)) return host;
    const comma = forwardedHost.lastIndexOf(',');
    return comma === -1 ? forwardedHost : forwardedHost.slice(comma + 1).trim();
  };
}

/** The same rule for node:http's requests. */
export function hostReader(trust: TrustProxy | undefined): (req: IncomingMessage) => string | undefined {
  const hostOf = hostOfReader(trust);
  if (hostOf === null) return (req) => req.headers.host;
  return (req) => hostOf(req.socket.remoteAddress, req.headers.host, req.headers['x-forwarded-host'] as string | undefined);
}

/** An IPv4 address as it is (IPv4-mapped IPv6 included); an IPv6 address as its /64 prefix. */
export function clientKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const prefix = (ip as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}
