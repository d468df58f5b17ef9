// Prints the README's configuration table, rendered from src/config/config.ts; --write puts it into README.md
// between the config-table markers.

import { readFileSync, writeFileSync } from 'node:fs';
import { configTable } from '../src/config/schema.ts';
import { SETTINGS } from '../src/config/config.ts';

export const README = new URL('../README.md', import.meta.url);
const START = '<!-- config-table:start -->';
const END = '<!-- config-table:end -->';

/** What README.md holds between the markers, without the blank lines around it. */
export function readmeTable(readme: string): string {
  return splitAtMarkers(readme).table.trim();
}

export function withTable(readme: string, table: string): string {
  const { before, after } = splitAtMarkers(readme);
  return `${before}${START}\n${table}\n${END}${after}`;
}

function splitAtMarkers(readme: string): { before: string; table: string; after: string } {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start === -1 || end < start) throw new Error(`README.md has no ${START} … ${END} around its configuration table`);
  return { before: readme.slice(0, start), table: readme.slice(start + START.length, end), after: readme.slice(end + END.length) };
}

function main(): void {
  const table = configTable(SETTINGS);
  if (!process.argv.includes('--write')) {
    process.stdout.write(`${table}\n`);
    return;
  }
  writeFileSync(README, withTable(readFileSync(README, 'utf8'), table));
}

if (import.meta.main) main();
