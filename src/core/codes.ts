// What a short code may look like, before any I/O.

import { decodeBase62, encodeBase62 } from './base62.ts';
import type { Permutation } from './permutation.ts';

/** A string that has passed the shape check: it may name a link. */
export type ShortCode = string & { readonly __brand: 'ShortCode' };

/** Lengths a generated code may have (CODE_LENGTH): 62^8 stays below 2^53. */
export const CODE_LENGTH_MIN = 5;
export const CODE_LENGTH_MAX = 8;

/** A code's or an alias's shape (generated codes are a narrower case of it). */
export const CODE_SHAPE = /^[A-Za-z0-9_-]{3,64}$/;

/** Path words that belong to the service, now or soon; never a link. Compared case-insensitively. */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'links',
  'healthz',
  'readyz',
  'livez',
  'metrics',
  'docs',
  'documentation',
  'openapi',
  'swagger',
  'api',
  'admin',
  'login',
  'logout',
  'auth',
  'static',
  'assets',
  'public',
  'stats',
  'status',
  'health',
  'favicon',
  'robots',
  'well-known',
  'sitemap',
  'app',
  'dashboard',
  'settings',
  'keys',
  'tags',
  'workspace',
  'workspaces',
  'domains',
  'stats',
  'webhooks',
  'members',
  'invitations',
  'audit',
  // Dub's API (compat/dub-routes.ts) reads GET /analytics on its hosts.
  'analytics',
  // The MCP server's endpoint (mcp/plugin.ts): GET /mcp must reach it, not the redirect path.
  'mcp',
  // The abuse report form (operators/report-routes.ts), on every short domain, and the operators' API.
  'report',
  'operator',
]);

/** The code if it has the shape of a link code (generated or alias), else undefined. */
export function asShortCode(raw: string): ShortCode | undefined {
  return CODE_SHAPE.test(raw) && !RESERVED_WORDS.has(raw.toLowerCase()) ? (raw as ShortCode) : undefined;
}

/** Why an alias is refused, or undefined when it is acceptable. */
export function aliasProblem(alias: string): 'ALIAS_INVALID' | 'ALIAS_RESERVED' | undefined {
  if (!CODE_SHAPE.test(alias)) return 'ALIAS_INVALID';
  if (RESERVED_WORDS.has(alias.toLowerCase())) return 'ALIAS_RESERVED';
  return undefined;
}

export interface CodeCodec {
  /** How many generated codes there are: ids from 0 to size - 1. */
  readonly size: number;
  /** The generated code of an id: permuted, base62, fixed length. */
  fromId(id: number): ShortCode;
  /** The id a generated-looking code stands for, or -1 if it cannot be a generated code. */
  toId(code: string): number;
}

export function createCodeCodec(permutation: Permutation, length: number): CodeCodec {
  return {
    size: permutation.size,
    fromId: (id) => encodeBase62(permutation.forward(id), length) as ShortCode,
    toId(code) {
      if (code.length !== length) return -1;
      const value = decodeBase62(code);
      return value < 0 ? -1 : permutation.inverse(value);
    },
  };
}
