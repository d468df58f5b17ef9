// What the redirect serves and refuses: its caches, its answers, where links may point, the limits on clients, the dashboard, sessions, and which proxies are believed.
// Part of SETTINGS (config.ts), in the order of docs/configuration.md's table.

import { Type } from 'typebox';
import {
  commaList,
  domainFile,
  domainList,
  hoursAsMs,
  minutesAsMs,
  isAbsoluteRedirect,
  isDnsServer,
  isHostName,
  isRedirectTarget,
  isTrustProxy,
  optional,
  secondsAsMs,
  type Settings,
} from './schema.ts';
import { requestHostName } from '../core/domains.ts';

export const SERVING_SETTINGS = {
  cacheMaxEntries: {
    env: 'CACHE_MAX_ENTRIES',
    schema: Type.Integer({ minimum: 1, maximum: 20_000_000, default: 1_000_000 }),
    doc: 'LRU size in links (at most 20 million; its index grows with the links it holds, about 60 bytes each)',
  },
  cacheMaxBytes: {
    env: 'CACHE_MAX_BYTES',
    schema: Type.Integer({ minimum: 1024, maximum: 64 * 1024 ** 3, default: 512 * 1024 * 1024 }),
    doc: 'LRU size in approximate bytes',
  },
  cacheTtlMs: {
    env: 'CACHE_TTL_SECONDS',
    schema: secondsAsMs(Type.Integer({ minimum: 1, maximum: 7 * 24 * 3600, default: 600 })),
    doc: 'how long a link stays in the LRU',
  },
  negativeMaxEntries: {
    env: 'NEGATIVE_MAX_ENTRIES',
    schema: Type.Integer({ minimum: 1, maximum: 20_000_000, default: 100_000 }),
    doc: 'unknown codes remembered, in an LRU of their own so that scanners cannot push links out',
  },
  negativeTtlMs: {
    env: 'NEGATIVE_TTL_SECONDS',
    schema: secondsAsMs(Type.Integer({ minimum: 1, maximum: 3600, default: 10 })),
    doc: 'how long an unknown code is remembered as unknown',
  },
  redirectCacheControl: {
    env: 'REDIRECT_CACHE_CONTROL',
    schema: Type.String({ pattern: '^[\\x20-\\x7e]+$', default: 'private, max-age=90' }),
    expected: 'printable ASCII',
    doc: '`cache-control` of every redirect',
  },
  redirectStatus: {
    env: 'REDIRECT_STATUS',
    schema: Type.Union([Type.Literal(302), Type.Literal(301), Type.Literal(307), Type.Literal(308)], { default: 302 }),
    expected: '301, 302, 307 or 308',
    doc:
      'the redirect status of links that do not choose one (`options.redirectStatus`); browsers keep a `301` or `308` and ' +
      'ask no more, so their later clicks are not counted and no rule sees them. Other than `302`, every link takes the ' +
      'ruled path (see [Link options](#link-options))',
  },
  forwardQuery: {
    env: 'FORWARD_QUERY',
    schema: Type.Boolean({ default: false }),
    doc:
      "`true`: a redirect merges the request's query into the target's for links that do not choose (`options.forwardQuery`); " +
      'every link then takes the ruled path (see [Link options](#link-options))',
  },
  scheduledLinkAnswer: {
    env: 'SCHEDULED_LINK_ANSWER',
    schema: Type.Union([Type.Literal('not_yet'), Type.Literal('not_found')], { default: 'not_yet' }),
    expected: 'not_yet or not_found',
    doc:
      'what a link answers before its `startsAt`: `not_yet`, `404 LINK_NOT_YET_ACTIVE` (browsers get a page, in the domain’s brand, ' +
      'saying when it starts); `not_found`, exactly what an unknown code answers (`404 LINK_NOT_FOUND`), so that nobody can tell ' +
      'a scheduled link exists. Either way a domain’s not-found fallback is sent first (see [Scheduled links](api.md#scheduled-links))',
  },
  allowPrivateTargets: {
    env: 'ALLOW_PRIVATE_TARGETS',
    schema: Type.Boolean({ default: false }),
    doc:
      '`true` lets links point at loopback, private, link-local, unique-local, carrier-grade NAT, ' +
      'multicast and reserved addresses (in any notation: `2130706433`, `0x7f.1`, `[::ffff:127.0.0.1]`) ' +
      'and at names that cannot be public (`localhost`, `*.local`, `*.internal`, `*.home.arpa`, single labels such as `router`); ' +
      'for an intranet shortener',
  },
  blockedDomains: {
    env: 'BLOCKED_DOMAINS',
    schema: domainList('BLOCKED_DOMAINS'),
    expected: 'a comma-separated list of domain names',
    doc:
      'comma-separated domains no link may point at, ' +
      'with all their subdomains (`evil.example, пример.рф`; IDN and `*.` prefixes accepted)',
  },
  blockedDomainsFile: {
    env: 'BLOCKED_DOMAINS_FILE',
    schema: domainFile('BLOCKED_DOMAINS_FILE'),
    expected: 'a file path',
    doc: 'a file of more such domains, one per line, `#` for comments; read at start-up',
  },
  allowShortenerTargets: {
    env: 'ALLOW_SHORTENER_TARGETS',
    schema: Type.Boolean({ default: false }),
    doc:
      '`true` lets links point at other URL shorteners (`bit.ly`, `tinyurl.com`, `t.co`, … in `src/core/shorteners.ts`), ' +
      'which are refused by default: a chain of redirects hides its real target from every check',
  },
  notFoundLimitPerMinute: {
    env: 'NOT_FOUND_LIMIT_PER_MINUTE',
    schema: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 120 }),
    doc:
      '`404`s a client (an IPv4 address, an IPv6 `/64`) may get per minute, refilled continuously; past it, ' +
      'codes not in the LRU answer `429 NOT_FOUND_RATE_LIMITED` before any lookup. Only `404`s count, ' +
      'so clicks on real links from one NAT cost nothing. Each instance counts on its own. Behind a load balancer set `TRUST_PROXY`, ' +
      'or every client shares one budget (a warning is logged once when requests carry `X-Forwarded-For` and no proxy is trusted). ' +
      '`0`: no limit',
  },
  notFoundLimitClients: {
    env: 'NOT_FOUND_LIMIT_CLIENTS',
    schema: Type.Integer({ minimum: 1, maximum: 10_000_000, default: 100_000 }),
    doc: 'clients whose 404 budget is remembered (an LRU; measured 135 bytes of heap per IPv4 client, 213 per IPv6 /64)',
  },
  passwordHashesAtOnce: {
    env: 'PASSWORD_HASHES_AT_ONCE',
    schema: Type.Integer({ minimum: 1, maximum: 64, default: 2 }),
    doc:
      "scrypt hashes of link passwords (16 MiB each, in libuv's pool beside file reads, DNS and QR images) that run at once; " +
      'guesses and new passwords wait for a slot, taking turns',
  },
  passwordGuessesWaiting: {
    env: 'PASSWORD_GUESSES_WAITING',
    schema: Type.Integer({ minimum: 0, maximum: 10_000, default: 16 }),
    doc: 'guesses at link passwords that wait for a hash slot; past it, `503 PASSWORD_CHECKS_BUSY` at once',
  },
  rateLimitEnabled: {
    env: 'RATE_LIMIT_ENABLED',
    schema: Type.Boolean({ default: true }),
    doc:
      'limits on creates (see [Rate limits on creates](#rate-limits-on-creates)); `false` for load tests, ' +
      'or behind a gateway that limits already',
  },
  rateLimitCreatesPerIp: {
    env: 'RATE_LIMIT_CREATES_PER_IP',
    schema: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 60 }),
    doc:
      'links a client address (an IPv4 address, an IPv6 `/64`, per `TRUST_PROXY`) may create per window without an API key; `0`: ' +
      'no limit',
  },
  rateLimitCreatesPerKey: {
    env: 'RATE_LIMIT_CREATES_PER_KEY',
    schema: Type.Integer({ minimum: 0, maximum: 10_000_000, default: 6000 }),
    doc:
      'links one API key may create per window, from any address (the default lets a key send a few full bulks: `POST /links/bulk` ' +
      'takes up to 1000); `0`: no limit (trusted internal callers)',
  },
  rateLimitWindowMs: {
    env: 'RATE_LIMIT_WINDOW_SECONDS',
    schema: secondsAsMs(Type.Integer({ minimum: 1, maximum: 24 * 3600, default: 60 })),
    doc: 'length of the fixed window the two limits count in',
  },
  createRequiresApiKey: {
    env: 'CREATE_REQUIRES_API_KEY',
    schema: Type.Boolean({ default: true }),
    doc:
      '`POST /links` and `/links/bulk` need an API key (`401 API_KEY_REQUIRED`, before the body is read). `false`: anyone may ' +
      'create plain links on the default domain without a key (an alias, an expiry, a title and tags, but no `domain` and no ' +
      '`options`: `403 ANONYMOUS_CREATE_LIMITED`), under `RATE_LIMIT_CREATES_PER_IP`. See [Upgrading](operations.md#upgrading)',
  },
  apiHosts: {
    env: 'API_HOSTS',
    schema: Type.Decode(commaList(isHostName), (hosts) => hosts.map((host) => (host === '*' ? host : requestHostName(host)))),
    expected: 'a comma-separated list of host names, or *',
    shownDefault: "`BASE_URL`'s host",
    doc:
      'the host names the API, the dashboard, `/docs`, `/metrics` and `/readyz` answer on, besides IP addresses and `localhost` ' +
      "(health checks, scrapes); unset: `BASE_URL`'s host. Any other host, a branded short domain first, serves its links only " +
      '(redirects, password forms, QR codes, `/`, `/healthz`): other paths answer `404 ROUTE_NOT_ON_HOST`. `*`: every host ' +
      '(the behaviour of earlier releases)',
  },
  dubApiHosts: {
    env: 'DUB_API_HOSTS',
    // Names, not `*` or addresses: Dub's paths (/links, /domains, /tags) would hide this service's own on every host.
    schema: Type.Decode(
      commaList((host) => host !== '*' && isHostName(host) && !/^[\d.]+(:\d+)?$|^\[/.test(host)),
      (hosts) => hosts.map(requestHostName),
    ),
    expected: 'a comma-separated list of host names',
    doc:
      "host names on which Dub's API answers (`https://dub.sho.rt`: see [Dub](compat.md#dub)), at the root as Dub's own; " +
      "on every other host the paths stay this service's. They are API hosts too (as `API_HOSTS`). Unset: Dub's API is not served",
  },
  dashboardEnabled: {
    env: 'DASHBOARD_ENABLED',
    schema: Type.Boolean({ default: true }),
    doc: 'the web dashboard under `/app/` (see [Dashboard](#dashboard)); `false`: the API alone',
  },
  rootRedirect: {
    env: 'ROOT_REDIRECT',
    schema: Type.Refine(Type.String(), isRedirectTarget),
    fallback: ({ dashboardEnabled }: { readonly dashboardEnabled: boolean }) => (dashboardEnabled ? '/app/' : 'none'),
    expected: 'a path of this service (/app/), an http(s) URL, or none',
    shownDefault: '`/app/` (`none` without the dashboard)',
    doc:
      "where `GET /` redirects (`302`): the dashboard, or on a branded short domain the company's site " +
      '(`https://acme.example`); `none`: `404`',
  },
  defaultDomainHosts: {
    env: 'DEFAULT_DOMAIN_HOSTS',
    schema: Type.Decode(commaList(isHostName), (hosts) => hosts.map((host) => (host === '*' ? host : requestHostName(host)))),
    expected: 'a comma-separated list of host names, or *',
    doc:
      "other host names the default domain answers for besides `BASE_URL`'s and `localhost`, `127.0.0.1`, `[::1]` " +
      '(an old name, an internal one); `*`: every host that is no short domain (the behaviour of the release before domains). ' +
      'See [Short domains](#short-domains)',
  },
  unknownHostRedirect: {
    env: 'UNKNOWN_HOST_REDIRECT',
    schema: optional(Type.Refine(Type.String(), isAbsoluteRedirect)),
    expected: 'an http(s) URL',
    doc: 'where a request for a code on a host this deployment does not serve is redirected (`302`); unset: `404 HOST_NOT_SERVED`',
  },
  domainVerification: {
    env: 'DOMAIN_VERIFICATION',
    schema: Type.Boolean({ default: true }),
    doc:
      "`true`: a workspace's short domain is served only once a TXT record `_shortener.<host>` holds the token `POST /domains` " +
      'gave, and is checked again every `DOMAIN_CHECK_INTERVAL_SECONDS`; `false`: every domain added is served at once ' +
      '(only for a private deployment whose admins are all trusted with every name). See ' +
      '[Domains: DNS, TLS and verification](operations.md#domains-dns-tls-and-verification)',
  },
  domainDnsResolvers: {
    env: 'DOMAIN_DNS_RESOLVERS',
    schema: commaList(isDnsServer, 8),
    expected: 'a comma-separated list of IP addresses, each with an optional :port (IPv6 in brackets then)',
    shownDefault: "the system's (`/etc/resolv.conf`)",
    doc: 'the DNS servers the verification records are asked of (at most 8, asked in turn)',
  },
  domainCheckIntervalMs: {
    env: 'DOMAIN_CHECK_INTERVAL_SECONDS',
    schema: secondsAsMs(Type.Integer({ minimum: 1, maximum: 7 * 24 * 3600, default: 3600 })),
    doc:
      'how often each domain (pending, verified or failing) is checked again; one instance checks each domain (rows are ' +
      'claimed in Postgres), whichever comes first',
  },
  domainCheckGrace: {
    env: 'DOMAIN_CHECK_GRACE',
    schema: Type.Integer({ minimum: 0, maximum: 1000, default: 24 }),
    doc:
      'checks in a row a verified domain that lost its record is still served through (status `failing`); ' +
      'at the next it stops being served (status `pending`) until the record is back',
  },
  domainPendingTtlMs: {
    env: 'DOMAIN_PENDING_HOURS',
    schema: hoursAsMs(Type.Integer({ minimum: 1, maximum: 365 * 24, default: 7 * 24 })),
    doc:
      'how long a pending domain holds its host for its workspace since it was added (or last verified); then another ' +
      'workspace may claim the host (a pending domain without links is removed)',
  },
  sessionTtlMs: {
    env: 'SESSION_TTL_HOURS',
    schema: hoursAsMs(Type.Integer({ minimum: 1, maximum: 720, default: 12 })),
    doc: 'how long a dashboard session lasts from signing in (1 to 720), however busy it is: the absolute timeout',
  },
  sessionIdleMs: {
    env: 'SESSION_IDLE_MINUTES',
    schema: minutesAsMs(Type.Integer({ minimum: 5, maximum: 720 * 60, default: 120 })),
    doc: "a person's dashboard session ends after this many minutes without a request (5 to 43200): the idle timeout",
  },
  signInAccountMaxFailures: {
    env: 'SIGN_IN_ACCOUNT_MAX_FAILURES',
    schema: Type.Integer({ minimum: 1, maximum: 10_000, default: 10 }),
    doc:
      'wrong passwords one account may be given per `SIGN_IN_WINDOW_SECONDS`, from any addresses, before its sign-ins are ' +
      '`429 SIGN_IN_RATE_LIMITED` until the window ends (counted in Redis when the tier is on); a right password gives its reservation back',
  },
  signInMaxFailures: {
    env: 'SIGN_IN_MAX_FAILURES',
    schema: Type.Integer({ minimum: 1, maximum: 10_000, default: 10 }),
    doc:
      'dashboard sign-ins a client address (per `TRUST_PROXY`; an IPv6 `/64`) may try per `SIGN_IN_WINDOW_SECONDS`, ' +
      'each reserved before the key is checked (so a burst of guesses checks no more keys than this) and given back when the key is right; ' +
      'past it every sign-in from there is `429 SIGN_IN_RATE_LIMITED` until the window ends (counted in Redis when the tier is on)',
  },
  signInWindowMs: {
    env: 'SIGN_IN_WINDOW_SECONDS',
    schema: secondsAsMs(Type.Integer({ minimum: 1, maximum: 24 * 3600, default: 900 })),
    doc: 'length of the fixed window sign-ins are counted in',
  },
  sessionsPerKeyMax: {
    env: 'SESSIONS_PER_KEY_MAX',
    schema: Type.Integer({ minimum: 1, maximum: 1000, default: 20 }),
    doc: 'open dashboard sessions a key may have; signing in once more closes its oldest',
  },
  credentialLookupsPerMinute: {
    env: 'CREDENTIAL_LOOKUPS_PER_MINUTE',
    schema: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 30 }),
    doc:
      'look-ups of API keys and session tokens this instance does not know to be good that a client address (per `TRUST_PROXY`; ' +
      'an IPv6 `/64`) may cause per minute; past it such a key or cookie is `429 CREDENTIALS_RATE_LIMITED` before any query ' +
      '(counted in Redis when the tier is on). A key or session that was good within the last hour, and one looked up in ' +
      'the last 10 s, costs nothing. `0`: no limit',
  },
  trustProxy: {
    env: 'TRUST_PROXY',
    schema: Type.Refine(Type.String({ default: 'false' }), isTrustProxy),
    expected: 'false, true, or a comma-separated list of IP addresses, CIDR ranges, loopback, linklocal, uniquelocal',
    doc:
      "which proxies' `X-Forwarded-For` names the client: `true` (any: only behind a proxy that overwrites it), " +
      'or a comma-separated list of addresses, CIDR ranges and `loopback`, `linklocal`, `uniquelocal`. Without it, ' +
      "the client is the socket's peer",
  },
} satisfies Settings;
