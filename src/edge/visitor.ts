// What a link's rules (core/redirect-rules.ts) ask of a request, read from the redirect's request
// view on either transport, each fact on demand and once: a rule on the country reads the client's
// address and the geography database, one on the device parses the User-Agent (remembered per
// string), one on the language reads Accept-Language; a link without such a rule reads none of them.

import { parseAgent } from '../core/user-agents.ts';
import { hash32 } from '../core/hll.ts';
import { Memo } from '../core/memo.ts';
import { preferredLanguage, type DeviceFacts, type Visitor } from '../core/redirect-rules.ts';
import type { AddressOf } from './client-address.ts';

/** The request fields a visitor (and analytics) reads, on either transport: part of the redirect's RedirectTransport. */
export interface RequestFields<Q> {
  userAgent(req: Q): string | undefined;
  /** The socket's peer address and the request's X-Forwarded-For, as they came (analytics reads the client's address from them by TRUST_PROXY's rule, once per distinct pair). */
  peer(req: Q): string | undefined;
  forwardedFor(req: Q): string | undefined;
  language(req: Q): string | undefined;
  /** The request came through the link's QR code (its query is QR_QUERY, request-head.ts). */
  qr(req: Q): boolean;
  /** The request's query, without "?"; '' without one. Read only by links' rules. */
  query(req: Q): string;
}

/** Distinct User-Agents and Accept-Languages remembered. */
const STRINGS_MAX = 20_000;
const BUCKET_SEED = 0x5bd1e995;

/** What visitors are read with: shared by every request. */
export interface VisitorReaders {
  /** The client's address by TRUST_PROXY's rule. */
  readonly addressOf: AddressOf;
  /** ISO 3166-1 alpha-2 of an address, or 'unknown'. */
  readonly countryOf: (address: string) => string;
  readonly devices: Memo<DeviceFacts>;
  readonly languages: Memo<string>;
}

export function visitorReaders(addressOf: AddressOf, countryOf: (address: string) => string): VisitorReaders {
  return {
    addressOf,
    countryOf,
    devices: new Memo(deviceFacts, STRINGS_MAX),
    languages: new Memo(preferredLanguage, STRINGS_MAX),
  };
}

function deviceFacts(userAgent: string): DeviceFacts {
  const agent = parseAgent(userAgent);
  const os = agent.os === 'iOS' ? 'ios' : agent.os === 'Android' ? 'android' : '';
  return { os, type: agent.device };
}

const NO_DEVICE: DeviceFacts = { os: '', type: 'other' };

/** One request as its link's rules see it. */
export class RequestVisitor<Q> implements Visitor {
  readonly #readers: VisitorReaders;
  readonly #io: RequestFields<Q>;
  readonly #req: Q;
  readonly #key: string;
  #address: string | undefined;

  constructor(readers: VisitorReaders, io: RequestFields<Q>, req: Q, key: string) {
    this.#readers = readers;
    this.#io = io;
    this.#req = req;
    this.#key = key;
  }

  #clientAddress(): string {
    this.#address ??= this.#readers.addressOf(this.#io.peer(this.#req), this.#io.forwardedFor(this.#req));
    return this.#address;
  }

  device(): DeviceFacts {
    const userAgent = this.#io.userAgent(this.#req);
    return userAgent === undefined ? NO_DEVICE : this.#readers.devices.get(userAgent);
  }

  country(): string {
    return this.#readers.countryOf(this.#clientAddress());
  }

  language(): string {
    const header = this.#io.language(this.#req);
    return header === undefined ? '' : this.#readers.languages.get(header);
  }

  /** The QR code's own query (QR_QUERY) is no query of the visitor's: neither forwarded nor matched. */
  query(): string {
    return this.#io.qr(this.#req) ? '' : this.#io.query(this.#req);
  }

  bucket(): number {
    const text = `${this.#clientAddress()}\n${this.#io.userAgent(this.#req) ?? ''}\n${this.#key}`;
    return (hash32(text, BUCKET_SEED) >>> 0) % 100;
  }
}
