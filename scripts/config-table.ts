// Prints the configuration table of docs/configuration.md, rendered from src/config/config.ts; --write puts it into
// the page between the config-table markers. A setting's text links to a section by its bare anchor
// (`[Webhooks](#webhooks)`); the table points each such link at the page that has the section.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { configTable } from '../src/config/schema.ts';
import { SETTINGS } from '../src/config/config.ts';

export const PAGE = new URL('../docs/configuration.md', import.meta.url);
const DOCS = new URL('../docs/', import.meta.url);
const README = new URL('../README.md', import.meta.url);
const START = '<!-- config-table:start -->';
const END = '<!-- config-table:end -->';

/** What the page holds between the markers, without the blank lines around it. */
export function pageTable(page: string): string {
  return splitAtMarkers(page).table.trim();
}

export function withTable(page: string, table: string): string {
  const { before, after } = splitAtMarkers(page);
  return `${before}${START}\n${table}\n${END}${after}`;
}

function splitAtMarkers(page: string): { before: string; table: string; after: string } {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start === -1 || end < start) throw new Error(`docs/configuration.md has no ${START} … ${END} around its table`);
  return { before: page.slice(0, start), table: page.slice(start + START.length, end), after: page.slice(end + END.length) };
}

/** The table as the page shows it: the settings' rows, each `](#anchor)` pointed at the page that has it. */
export function renderedTable(): string {
  return linkSections(configTable(SETTINGS), pagesBesideTheTable());
}

/** Markdown pages by their link from docs/configuration.md: the other docs/ pages and the README. */
function pagesBesideTheTable(): Map<string, string> {
  const pages = new Map<string, string>();
  for (const name of readdirSync(DOCS)
    .filter((file) => file.endsWith('.md'))
    .sort()) {
    pages.set(name === 'configuration.md' ? '' : name, readFileSync(new URL(name, DOCS), 'utf8'));
  }
  pages.set('../README.md', readFileSync(README, 'utf8'));
  return pages;
}

/**
 * Points each `](#anchor)` of `table` at the one page (a link from the configuration page, '' for itself) that
 * has the anchor: its own if it has it; a page whose title it is, without the anchor. A link that names its page
 * (`](architecture.md#cluster-mode)`) is left as it is.
 */
export function linkSections(table: string, pages: ReadonlyMap<string, string>): string {
  const anchors = new Map([...pages].map(([link, text]) => [link, anchorsOf(text)] as const));
  return table.replace(/\]\(#([^)\s]+)\)/g, (_, anchor: string) => {
    if (anchors.get('')?.all.has(anchor) === true) return `](#${anchor})`;
    const titled = [...anchors].filter(([, page]) => page.title === anchor).map(([link]) => link);
    const holding = [...anchors].filter(([, page]) => page.all.has(anchor)).map(([link]) => link);
    if (titled.length === 1) return `](${titled[0]})`;
    if (holding.length === 1) return `](${holding[0]}#${anchor})`;
    throw new Error(
      holding.length === 0
        ? `a setting links to #${anchor}, which no page of docs/ (nor the README) has`
        : `a setting links to #${anchor}, which ${holding.join(' and ')} all have: name the page, ${holding.map((link) => `\`${link}#${anchor}\``).join(' or ')}`,
    );
  });
}

/** A page's anchors as GitHub makes them (headings outside code blocks, `<a id>`), and its title's. */
function anchorsOf(page: string): { title: string | undefined; all: Set<string> } {
  const all = new Set<string>();
  const seen = new Map<string, number>();
  let title: string | undefined;
  let fenced = false;
  for (const line of page.split('\n')) {
    if (line.trimStart().startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    for (const [, id] of line.matchAll(/<a id="([^"]+)"/g)) if (id !== undefined) all.add(id);
    const heading = /^(#{1,6}) (.*)$/.exec(line);
    if (heading === null) continue;
    const base = slug(heading[2] ?? '');
    const repeats = seen.get(base) ?? 0;
    seen.set(base, repeats + 1);
    all.add(repeats === 0 ? base : `${base}-${repeats}`);
    if (heading[1] === '#') title ??= base;
  }
  return { title, all };
}

/** GitHub's heading anchor: the text without markup, lowercase, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replaceAll('`', '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}_\- ]/gu, '')
    .replaceAll(' ', '-');
}

function main(): void {
  const table = renderedTable();
  if (!process.argv.includes('--write')) {
    process.stdout.write(`${table}\n`);
    return;
  }
  writeFileSync(PAGE, withTable(readFileSync(PAGE, 'utf8'), table));
}

if (import.meta.main) main();
