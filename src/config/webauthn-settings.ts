// Passkeys (WebAuthn): the relying party browsers bind a passkey to, and the origins its ceremonies
// may come from. Part of SETTINGS (config.ts), in the order of docs/configuration.md's table.
// docs/second-factors.md.

import { isIP } from 'node:net';
import { Type } from 'typebox';
import { commaList, isHostName, type Settings } from './schema.ts';

/** An http(s) origin (scheme, host, port): what a browser puts in a ceremony's clientDataJSON. */
function isWebOrigin(raw: string): boolean {
  const url = URL.parse(raw);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === raw.replace(/\/$/, '');
}

/**
 * A host without a port: a relying party id is the host a passkey belongs to, or one of its parent
 * domains. An IP address passes (it is BASE_URL's host where that is one) but makes no passkey.
 */
const isRpId = (raw: string): boolean => (isHostName(raw) && raw !== '*' && !raw.includes(':')) || /^\[[0-9A-Fa-f:.]+\]$/.test(raw);

/**
 * Whether browsers offer passkeys to the dashboard at `baseUrl`: only in a secure context (an https
 * origin, or http on localhost), and only on a domain name: an IP address is no relying party id
 * (Chromium: "This is an invalid domain"), so http://127.0.0.1 has none.
 */
export function passkeysAvailable(baseUrl: string): boolean {
  const url = new URL(baseUrl);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) return false;
  return url.protocol === 'https:' || host === 'localhost' || host.endsWith('.localhost');
}

/** Origins whose host is not the relying party id nor under it: browsers refuse every ceremony from them. */
export function webauthnProblems(config: { readonly webauthnRpId: string; readonly webauthnOrigins: readonly string[] }): string[] {
  const { webauthnRpId: rpId } = config;
  return config.webauthnOrigins
    .filter((origin) => {
      const host = new URL(origin).hostname;
      return host !== rpId && !host.endsWith(`.${rpId}`);
    })
    .map((origin) => `WEBAUTHN_ORIGINS has ${origin}: expected origins on WEBAUTHN_RP_ID (${rpId}) or under it`);
}

export const WEBAUTHN_SETTINGS = {
  webauthnRpId: {
    env: 'WEBAUTHN_RP_ID',
    schema: Type.Decode(Type.Refine(Type.String(), isRpId), (id) => id.toLowerCase()),
    fallback: ({ baseUrl }: { readonly baseUrl: string }) => new URL(baseUrl).hostname,
    expected: 'a domain name without a port, such as sho.rt',
    shownDefault: "`BASE_URL`'s host",
    doc:
      "the relying party id passkeys are bound to: the dashboard's host or a parent domain of it. Changing it later makes the " +
      'passkeys registered so far unusable. Passkeys are offered only when `BASE_URL` is https, or http on `localhost` ' +
      '(browsers allow WebAuthn in secure contexts only, and on domain names). See [second factors](second-factors.md)',
  },
  webauthnRpName: {
    env: 'WEBAUTHN_RP_NAME',
    schema: Type.String({ pattern: '^[\\x20-\\x7e]{1,64}$', default: 'shortener' }),
    expected: '1 to 64 printable ASCII characters',
    doc: 'the name a browser or an authenticator shows for this service when a passkey is made',
  },
  webauthnOrigins: {
    env: 'WEBAUTHN_ORIGINS',
    schema: Type.Decode(commaList(isWebOrigin), (origins) => origins.map((origin) => new URL(origin).origin)),
    fallback: ({ baseUrl }: { readonly baseUrl: string }) => new URL(baseUrl).origin,
    expected: 'a comma-separated list of http(s) origins, such as https://sho.rt,https://app.sho.rt',
    shownDefault: "`BASE_URL`'s origin",
    doc: 'the origins a passkey ceremony may come from (the pages that show the dashboard); each must be on the relying party id',
  },
} satisfies Settings;
