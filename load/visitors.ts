// Clicks as browsers and crawlers send them, for the runs that measure click analytics (the
// analytics, stream, rules and storage scenarios of load/scenarios/, load/enrich-bench.ts): real
// User-Agent strings of desktop and mobile browsers, in-app browsers and crawlers, in rough
// proportion to a link's traffic; referrers (a third of clicks have none); Accept-Language values;
// and public IPv4 addresses, sent as X-Forwarded-For (the services run with TRUST_PROXY=loopback).
// Everything is made from a seeded PRNG (traffic.ts): no network, the same clicks on every run.
//
// A visitor is one address with one browser and one language; a click is a visitor and a referrer.

import type { Request } from 'autocannon';
import { seededRandom } from './traffic.ts';

export interface Click {
  readonly userAgent: string;
  /** undefined: no Referer (typed in, an app, a crawler). */
  readonly referer: string | undefined;
  /** undefined: no Accept-Language (crawlers). */
  readonly language: string | undefined;
  /** Public IPv4, sent as X-Forwarded-For. */
  readonly address: string;
}

/** Placeholders of the agent templates: the "current" value of each, and how a variant draws one. */
const VERSIONS: Readonly<Record<string, { current: string; draw: (r: () => number) => string }>> = {
  // Chrome's reduced User-Agent names only its major version.
  chrome: { current: '138', draw: (r) => String(118 + int(r, 22)) },
  chromeFull: { current: '138.0.7204.119', draw: (r) => `${118 + int(r, 22)}.0.${6000 + int(r, 1300)}.${int(r, 200)}` },
  edge: { current: '138.0.3351.83', draw: (r) => `${118 + int(r, 22)}.0.${2000 + int(r, 1400)}.${int(r, 120)}` },
  firefox: { current: '140', draw: (r) => String(115 + int(r, 27)) },
  safari: { current: '18.5', draw: (r) => `${16 + int(r, 3)}.${int(r, 7)}` },
  ios: { current: '18_5', draw: (r) => `${16 + int(r, 3)}_${int(r, 7)}${r() < 0.3 ? `_${1 + int(r, 3)}` : ''}` },
  android: { current: '15', draw: (r) => String(10 + int(r, 6)) },
  samsung: { current: '28.0', draw: (r) => `${22 + int(r, 7)}.0` },
  model: {
    current: 'SM-S928B',
    draw: (r) => pick(r, ['SM-S928B', 'SM-S918B', 'SM-A546B', 'SM-G991B', 'Pixel 8', 'Pixel 7a', '2201116SG', 'CPH2581', 'moto g54 5G']),
  },
  instagram: { current: '389.0.0.49.87', draw: (r) => `${330 + int(r, 60)}.0.0.${int(r, 60)}.${int(r, 120)}` },
  fban: { current: '520.0.0.44.71', draw: (r) => `${450 + int(r, 70)}.0.0.${int(r, 60)}.${int(r, 120)}` },
};

/** What share of a link's clicks each comes with (weights, summing to 100); the crawlers are ~5 %. */
const AGENTS: readonly { weight: number; template: string }[] = [
  {
    weight: 19,
    template: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{chrome}.0.0.0 Safari/537.36',
  },
  {
    weight: 6,
    template: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{chrome}.0.0.0 Safari/537.36',
  },
  { weight: 1, template: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{chrome}.0.0.0 Safari/537.36' },
  { weight: 3, template: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:{firefox}.0) Gecko/20100101 Firefox/{firefox}.0' },
  { weight: 1, template: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:{firefox}.0) Gecko/20100101 Firefox/{firefox}.0' },
  { weight: 1, template: 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:{firefox}.0) Gecko/20100101 Firefox/{firefox}.0' },
  {
    weight: 5,
    template: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/{safari} Safari/605.1.15',
  },
  {
    weight: 5,
    template:
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{chrome}.0.0.0 Safari/537.36 Edg/{edge}',
  },
  {
    weight: 19,
    template:
      'Mozilla/5.0 (iPhone; CPU iPhone OS {ios} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/{safari} Mobile/15E148 Safari/604.1',
  },
  {
    weight: 3,
    template:
      'Mozilla/5.0 (iPhone; CPU iPhone OS {ios} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/{chromeFull} Mobile/15E148 Safari/604.1',
  },
  {
    weight: 3,
    template:
      'Mozilla/5.0 (iPhone; CPU iPhone OS {ios} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/22F76 ' +
      'Instagram {instagram} (iPhone15,3; iOS {ios}; en_US; en; scale=3.00; 1290x2796; 745251361)',
  },
  {
    weight: 14,
    template: 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{chrome}.0.0.0 Mobile Safari/537.36',
  },
  {
    weight: 3,
    template:
      'Mozilla/5.0 (Linux; Android {android}; {model}) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/{samsung} ' +
      'Chrome/{chrome}.0.0.0 Mobile Safari/537.36',
  },
  { weight: 1, template: 'Mozilla/5.0 (Android {android}; Mobile; rv:{firefox}.0) Gecko/{firefox}.0 Firefox/{firefox}.0' },
  {
    weight: 3,
    template:
      'Mozilla/5.0 (Linux; Android {android}; {model} Build/AP2A.240805.005; wv) AppleWebKit/537.36 (KHTML, like Gecko) ' +
      'Version/4.0 Chrome/{chromeFull} Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/{fban};]',
  },
  {
    weight: 3,
    template:
      'Mozilla/5.0 (iPad; CPU OS {ios} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/{safari} Mobile/15E148 Safari/604.1',
  },
  {
    weight: 1,
    template: 'Mozilla/5.0 (Linux; Android {android}; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{chrome}.0.0.0 Safari/537.36',
  },
  { weight: 1.5, template: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' },
  { weight: 1, template: 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)' },
  { weight: 1.5, template: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)' },
  { weight: 1, template: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' },
];

/** Crawlers send neither Referer nor Accept-Language. */
const CRAWLER = /bot|externalhit|Slackbot/i;

/** Where clicks come from; `undefined`: no Referer. */
const REFERRERS: readonly { weight: number; referer: string | undefined }[] = [
  { weight: 35, referer: undefined },
  { weight: 18, referer: 'https://www.google.com/' },
  { weight: 9, referer: 'https://t.co/' },
  { weight: 8, referer: 'https://l.facebook.com/' },
  { weight: 7, referer: 'https://l.instagram.com/' },
  { weight: 6, referer: 'https://www.linkedin.com/' },
  { weight: 5, referer: 'android-app://com.google.android.gm/' },
  { weight: 4, referer: 'https://www.reddit.com/' },
  { weight: 3, referer: 'https://news.ycombinator.com/' },
  { weight: 2, referer: 'https://duckduckgo.com/' },
  { weight: 3, referer: 'https://www.bing.com/' },
];

const LANGUAGES: readonly { weight: number; language: string }[] = [
  { weight: 50, language: 'en-US,en;q=0.9' },
  { weight: 15, language: 'de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7' },
  { weight: 12, language: 'fr-FR,fr;q=0.9,en-US;q=0.8,en;q=0.7' },
  { weight: 12, language: 'es-ES,es;q=0.9' },
  { weight: 11, language: 'pt-BR,pt;q=0.9,en-US;q=0.8,en;q=0.7' },
];

/** More languages for a wider audience (load/enrich-bench.ts). */
const MORE_LANGUAGES = [
  'ja-JP,ja;q=0.9',
  'it-IT,it;q=0.9,en;q=0.8',
  'nl-NL,nl;q=0.9,en;q=0.8',
  'pl-PL,pl;q=0.9',
  'zh-CN,zh;q=0.9',
  'ru-RU,ru;q=0.9',
  'tr-TR,tr;q=0.9',
  'ko-KR,ko;q=0.9',
  'en-GB,en;q=0.9',
  'sv-SE,sv;q=0.9,en;q=0.8',
];

/** The ~20 User-Agents of AGENTS with current versions, as they come. */
export const USER_AGENTS: readonly string[] = AGENTS.map((agent) => fill(agent.template, (name) => versionOf(name).current));

export interface AudienceOptions {
  /** Distinct addresses, one visitor each. */
  readonly visitors: number;
  /** Distinct User-Agent strings: AGENTS with current versions when no more than their number, else variants of them with other versions. */
  readonly agents: number;
  /** Referrers besides REFERRERS' own: links from that many other sites (blogs, newsletters). */
  readonly moreReferrers?: number;
  /** Add MORE_LANGUAGES to the five of LANGUAGES. */
  readonly moreLanguages?: boolean;
  readonly seed: number;
}

export interface Audience {
  /** One click: a visitor drawn uniformly, a referrer by weight. */
  click(): Click;
  readonly agents: readonly string[];
  readonly addresses: readonly string[];
}

/** Visitors (an address, a browser and a language each) and the referrers their clicks come through. */
export function audience(options: AudienceOptions): Audience {
  const random = seededRandom(options.seed);
  const agents = userAgents(options.agents, random);
  const agentKind = weighted(
    random,
    agents.map((agent) => agent.weight),
  );
  const addresses = publicAddresses(options.visitors, random);
  const languages = [...LANGUAGES, ...(options.moreLanguages === true ? MORE_LANGUAGES.map((language) => ({ weight: 3, language })) : [])];
  const language = weighted(
    random,
    languages.map((l) => l.weight),
  );
  const visitors = addresses.map((address) => {
    const userAgent = (agents[agentKind()] as { string: string }).string;
    const bot = CRAWLER.test(userAgent);
    return { address, userAgent, language: bot ? undefined : (languages[language()] as { language: string }).language, bot };
  });
  const sites = Array.from({ length: options.moreReferrers ?? 0 }, (_, i) => `https://blog-${i}.example.net/2026/06/post-${i % 97}`);
  const referrers = [...REFERRERS, ...sites.map((referer) => ({ weight: 10 / Math.max(1, sites.length), referer }))];
  const referrer = weighted(
    random,
    referrers.map((r) => r.weight),
  );
  return {
    agents: agents.map((agent) => agent.string),
    addresses,
    click() {
      const visitor = visitors[Math.floor(random() * visitors.length)] as (typeof visitors)[number];
      const referer = visitor.bot ? undefined : referrers[referrer()]?.referer;
      return { userAgent: visitor.userAgent, referer, language: visitor.language, address: visitor.address };
    },
  };
}

/**
 * The visitors of the suite's scenarios: 10,000 addresses, each with one of ~20 browsers and
 * crawlers and one of 5 languages, clicking through ~10 referrers or none.
 */
export const SUITE_VISITORS = { visitors: 10_000, agents: USER_AGENTS.length };

/** `requests` as clicks of the suite's visitors (drawn from `seed`); each call draws on where the one before stopped. */
export function clicking(seed: number): (requests: readonly Request[]) => Request[] {
  const visitors = audience({ ...SUITE_VISITORS, seed });
  return (requests) => requests.map((request) => ({ ...request, headers: clickHeaders(visitors.click()) }));
}

/** A click's request headers, spelt as browsers spell them. */
export function clickHeaders(click: Click): Record<string, string> {
  const headers: Record<string, string> = { 'User-Agent': click.userAgent, 'X-Forwarded-For': click.address };
  if (click.referer !== undefined) headers.Referer = click.referer;
  if (click.language !== undefined) headers['Accept-Language'] = click.language;
  return headers;
}

/** `count` distinct User-Agents, each with the weight of its kind shared among its variants. */
function userAgents(count: number, random: () => number): { string: string; weight: number }[] {
  if (count <= AGENTS.length) return AGENTS.slice(0, count).map((agent, i) => ({ string: USER_AGENTS[i] as string, weight: agent.weight }));
  const seen = new Set<string>(USER_AGENTS);
  const kinds = AGENTS.map((agent, i) => ({ weight: agent.weight, strings: [USER_AGENTS[i] as string] }));
  const kind = weighted(
    random,
    AGENTS.map((agent) => agent.weight),
  );
  // Variants where the template has versions; a crawler's string has none, and stays one.
  for (let tries = 0; seen.size < count && tries < count * 100; tries++) {
    const k = kind();
    const template = (AGENTS[k] as { template: string }).template;
    if (!template.includes('{')) continue;
    const string = fill(template, (name) => versionOf(name).draw(random));
    if (seen.has(string)) continue;
    seen.add(string);
    kinds[k]?.strings.push(string);
  }
  return kinds.flatMap((k) => k.strings.map((string) => ({ string, weight: k.weight / k.strings.length })));
}

/**
 * Blocks that are not public unicast (RFC 6890 and its kin): this network, private, shared,
 * loopback, link-local, the IETF and documentation blocks, benchmarking, multicast, reserved.
 */
const NOT_PUBLIC: readonly [number, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
].map(([address, bits]) => [ipv4Number(address as string), bits as number]);

/** `count` distinct public IPv4 addresses, drawn uniformly from the public space. */
export function publicAddresses(count: number, random: () => number): string[] {
  const seen = new Set<number>();
  while (seen.size < count) {
    const n = Math.floor(random() * 2 ** 32);
    if (!NOT_PUBLIC.some(([block, bits]) => n >>> (32 - bits) === block >>> (32 - bits))) seen.add(n);
  }
  return [...seen].map((n) => `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`);
}

function ipv4Number(address: string): number {
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function versionOf(name: string): { current: string; draw: (r: () => number) => string } {
  const version = VERSIONS[name];
  if (version === undefined) throw new Error(`no version named {${name}}`);
  return version;
}

function fill(template: string, value: (name: string) => string): string {
  // One value per placeholder name within a string: Firefox names its version twice.
  const chosen = new Map<string, string>();
  return template.replaceAll(/\{(\w+)\}/g, (_, name: string) => {
    let v = chosen.get(name);
    if (v === undefined) {
      v = value(name);
      chosen.set(name, v);
    }
    return v;
  });
}

/** Draws an index with probability proportional to its weight. */
function weighted(random: () => number, weights: readonly number[]): () => number {
  const cdf: number[] = [];
  let sum = 0;
  for (const w of weights) cdf.push((sum += w));
  return () => {
    const u = random() * sum;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cdf[mid] as number) <= u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

function int(random: () => number, n: number): number {
  return Math.floor(random() * n);
}

function pick<T>(random: () => number, values: readonly T[]): T {
  return values[int(random, values.length)] as T;
}
