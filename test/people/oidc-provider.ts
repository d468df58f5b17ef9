// A real OpenID provider on loopback for the single sign-on tests: oidc-provider (an OpenID-certified
// provider for Node) in the test's process, with one confidential client that must use PKCE, accounts
// from a small table the test controls, and the provider's own development login page (any password;
// the login is the account). Consent is taken as given (a first-party client), so a sign-in is one form.

import { generateKeyPairSync } from 'node:crypto';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Locator, Page } from 'playwright-core';

export interface TestAccount {
  email: string;
  emailVerified: boolean;
  name: string;
}

export interface TestProvider {
  readonly issuer: string;
  /** The accounts, by login (their subject too); change them between sign-ins as a test needs. */
  readonly accounts: Map<string, TestAccount>;
  /**
   * Follows the provider's pages from `authorizationUrl` as a browser would, signs in as `login` on
   * its login form, and returns where the provider sends the browser back to (the app's callback).
   */
  signIn(authorizationUrl: string, login: string): Promise<URL>;
  /** In a browser: clicks `button` (the app's), and signs in as `login` on the provider's login page. */
  signInInBrowser(page: Page, button: Locator, login: string): Promise<void>;
  close(): Promise<void>;
}

export const CLIENT = { id: 'shortener-test', secret: 'a-client-secret-only-the-test-knows-0123456789' } as const;

interface Grant {
  addOIDCScope(scope: string): void;
  save(): Promise<string>;
}
interface ProviderContext {
  oidc: { client?: { clientId: string }; session?: { accountId?: string }; provider: { Grant: new (init: object) => Grant } };
}
type ProviderClass = new (issuer: string, configuration: object) => { callback(): RequestListener };

// Imported by a name TypeScript does not resolve: the package ships no types, and the test uses four calls of it.
const PACKAGE: string = 'oidc-provider';

export async function startProvider(redirectUri: string): Promise<TestProvider> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, TestAccount>();
  const { default: Provider } = (await import(PACKAGE)) as { default: ProviderClass };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    cookies: { keys: ['a-cookie-key-of-the-test-provider'] },
    // Its own signing key and lifetimes: the provider warns about its quick-start ones otherwise.
    jwks: {
      keys: [{ ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: 'test', use: 'sig' }],
    },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
    features: { devInteractions: { enabled: true } },
    findAccount(_ctx: unknown, id: string) {
      const account = accounts.get(id);
      if (account === undefined) return undefined;
      const claims = { sub: id, email: account.email, email_verified: account.emailVerified, name: account.name };
      return { accountId: id, claims: () => claims };
    },
    // A first-party client: no consent page.
    async loadExistingGrant(ctx: ProviderContext) {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client?.clientId, accountId: ctx.oidc.session?.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    accounts,
    signIn: (authorizationUrl, login) => followProvider(issuer, authorizationUrl, login),
    async signInInBrowser(page, button, login) {
      await button.click();
      await page.waitForURL(`${issuer}/**`);
      await page.locator('input[name=login]').fill(login);
      await page.locator('input[name=password]').fill('any');
      await page.locator('button[type=submit]').click();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The provider's redirects and its login form, with a cookie jar of the provider's cookies, until a redirect leaves the provider. */
async function followProvider(issuer: string, authorizationUrl: string, login: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = new URL(authorizationUrl);
  let form: URLSearchParams | undefined;
  for (let hop = 0; hop < 12; hop++) {
    if (url.origin !== issuer) return url;
    const headers: Record<string, string> = { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') };
    const res = await fetch(url, { ...(form === undefined ? {} : { method: 'POST', body: form }), headers, redirect: 'manual' });
    form = undefined;
    for (const cookie of res.headers.getSetCookie()) {
      const [name = '', value = ''] = (cookie.split(';')[0] ?? '').split('=');
      if (/expires=Thu, 01 Jan 1970/i.test(cookie)) jar.delete(name);
      else jar.set(name, value);
    }
    const location = res.headers.get('location');
    if (location !== null) {
      url = new URL(location, url);
      continue;
    }
    const page = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    if (res.status !== 200 || action === undefined) throw new Error(`the provider answered ${res.status}: ${page.slice(0, 300)}`);
    url = new URL(action.replaceAll('&amp;', '&'), url);
    form = new URLSearchParams({ prompt: 'login', login, password: 'any' });
  }
  throw new Error('the provider did not send the browser back');
}
