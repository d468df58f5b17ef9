// `shortener links stats`: a link's clicks, all time and over a range of UTC days (--from/--to, or
// the last --days), the days that had any, and the top values of the dimensions asked for.

import { Command, Option } from 'commander';
import * as api from '../client/operations.ts';
import { day, integerIn, onDomain } from './arguments.ts';
import { connect, wantsJson } from './config.ts';
import { count, print, printJson, table } from './output.ts';

type Stats = api.GetLinksByCodeStatsResponses[200];

interface StatsOptions {
  domain?: string;
  from?: string;
  to?: string;
  days?: number;
  dimensions?: string;
}

const DAY_MS = 86_400_000;

export function statsCommand(): Command {
  return new Command('stats')
    .description("a link's clicks: all time, over a range of UTC days, per day and per dimension")
    .argument('<code>', 'the short code')
    .option('--domain <host>', 'the short domain the link is on (default: the default domain)')
    .addOption(new Option('--from <day>', 'the first UTC day, YYYY-MM-DD (default: 29 days before --to)').argParser(day).conflicts('days'))
    .addOption(new Option('--to <day>', 'the last UTC day, YYYY-MM-DD (default: today)').argParser(day).conflicts('days'))
    .option('--days <n>', 'the last n UTC days, today included (1-366)', integerIn(1, 366))
    .option('--dimensions <list>', 'comma-separated: referrer, country, city, device, browser, os, language, source, target, or all')
    .option('--json', "print the API's answer as JSON")
    .action(async (code: string, options: StatsOptions, command: Command) => {
      const client = await connect(command);
      const query = { ...onDomain(options.domain), ...range(options) };
      if (options.dimensions !== undefined) Object.assign(query, { dimensions: options.dimensions });
      const { data } = await api.getLinksByCodeStats({ client, throwOnError: true, path: { code }, query });
      if (wantsJson(command)) printJson(data);
      else showStats(data);
    });
}

function range(options: StatsOptions): { from?: string; to?: string } {
  if (options.days !== undefined) {
    const today = Date.now();
    return { from: utcDay(today - (options.days - 1) * DAY_MS), to: utcDay(today) };
  }
  return { ...(options.from === undefined ? {} : { from: options.from }), ...(options.to === undefined ? {} : { to: options.to }) };
}

function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

function showStats(stats: Stats): void {
  print(`${stats.code}: ${count(stats.total.clicks)} clicks by people, ${count(stats.total.botClicks)} by bots, all time`);
  const { clicks, botClicks, visitors } = stats.range;
  print(`${stats.from} to ${stats.to}: ${count(clicks)} clicks by people, ${count(botClicks)} by bots, ${count(visitors)} visitors`);
  const busy = stats.daily.filter((daily) => daily.clicks + daily.botClicks > 0);
  if (busy.length > 0) {
    print('');
    print(
      table(
        ['DAY', 'CLICKS', 'BOTS', 'VISITORS'],
        busy.map((daily) => [daily.day, count(daily.clicks), count(daily.botClicks), count(daily.visitors)]),
      ),
    );
  }
  for (const [dimension, values] of Object.entries(stats.dimensions)) {
    if (values.length === 0) continue;
    print('');
    print(
      table(
        [dimension.toUpperCase(), 'CLICKS', 'BOTS', 'VISITORS'],
        values.map((value) => [
          value.other === true ? '(other)' : value.value,
          count(value.clicks),
          count(value.botClicks),
          count(value.visitors),
        ]),
      ),
    );
  }
}
