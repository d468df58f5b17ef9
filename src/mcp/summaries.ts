// The text a tool answers besides its structured content: a few lines a model (or a person reading
// along) takes in at a glance. The whole answer is the structured content, the API's own JSON.

import type { GetLinksByCodeResponse, GetLinksResponse, GetStatsResponse, PostLinksResponse } from '../client/operations.ts';

/** What a created, changed or read link answers; `state` and `clicks` only once it has been read back. */
type LinkFacts = Pick<PostLinksResponse, 'shortUrl' | 'url' | 'title' | 'tags' | 'expiresAt' | 'startsAt'> &
  Partial<Pick<GetLinksByCodeResponse, 'state' | 'clicks'>>;

/** One line: `https://sho.rt/abc → https://example.com/ [active, 3 clicks] "Title" #tag, expires …`. */
export function linkLine(link: LinkFacts): string {
  const facts = [
    ...(link.state === undefined ? [] : [link.state]),
    ...(link.clicks === undefined ? [] : [`${link.clicks} ${link.clicks === 1 ? 'click' : 'clicks'}`]),
  ];
  return [
    `${link.shortUrl} → ${link.url}`,
    ...(facts.length === 0 ? [] : [`[${facts.join(', ')}]`]),
    ...(link.title === null ? [] : [JSON.stringify(link.title)]),
    ...link.tags.map((tag) => `#${tag}`),
    ...(link.startsAt === null ? [] : [`starts ${link.startsAt}`]),
    ...(link.expiresAt === null ? [] : [`expires ${link.expiresAt}`]),
  ].join(' ');
}

/** A page of links, one a line, and how to ask for the next. */
export function pageSummary(page: GetLinksResponse): string {
  const total = page.total === undefined ? '' : ` of ${page.total}${page.totalAtLeast === true ? ' or more' : ''}`;
  const head = page.links.length === 0 ? 'No links.' : `${page.links.length} links${total}:`;
  const next =
    page.nextCursor === null
      ? 'This is the last page.'
      : `More: pass cursor "${page.nextCursor}" (with the same filters) for the next page.`;
  return [head, ...page.links.map((link) => `- ${linkLine(link)}`), next].join('\n');
}

type Stats = Pick<GetStatsResponse, 'from' | 'to' | 'range' | 'dimensions'> & Partial<Pick<GetStatsResponse, 'topLinks'>>;

/** Most values shown per dimension, and most links, in the summary (the structured content has all of them). */
const SHOWN = 5;

/** The period's totals, then the first values of each dimension and the most clicked links. */
export function statsSummary(stats: Stats): string {
  const { range } = stats;
  const lines = [
    `${stats.from} to ${stats.to}: clicks by people ${range.clicks}, by bots ${range.botClicks}; unique visitors about ${range.visitors}.`,
  ];
  for (const [dimension, values] of Object.entries(stats.dimensions)) {
    const shown = values.slice(0, SHOWN).map((value) => `${value.other === true ? 'other' : value.value} ${value.clicks}`);
    lines.push(`${dimension}: ${shown.length === 0 ? 'none' : shown.join(', ')}`);
  }
  const top = stats.topLinks?.slice(0, SHOWN) ?? [];
  if (top.length > 0) lines.push(`Most clicked: ${top.map((link) => `${link.shortUrl} ${link.clicks}`).join(', ')}`);
  return lines.join('\n');
}
