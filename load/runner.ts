// The runner's steps, for load/run.ts: the chosen scenarios run in order, the main service and the
// servers of the redirect rounds up exactly while a scenario needs them, the rounds' variants
// measured together; then the runs marked and judged, and written as the table, JSON and HTML.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from './context.ts';
import { thisMachine } from './machine.ts';
import { compare, type Variant } from './measure.ts';
import { neededFrom, type Step } from './plan.ts';
import { renderReport } from './report/page.ts';
import { renderTable } from './report/text.ts';
import { isInRounds, type InRounds } from './scenario.ts';
import { judgeTargets, markGeneratorLimits } from './scenarios/index.ts';
import { ranOn, startService } from './service.ts';
import type { RunResult, SuiteResult } from './types.ts';

/**
 * Runs the steps in order: the main service starts before the first step that needs it or its
 * links, and it stops, as do the servers the redirect rounds kept up, once no step left needs them.
 */
export async function runSteps(context: Context, steps: readonly Step[], settings: Record<string, string>): Promise<void> {
  for (const [i, step] of steps.entries()) {
    if (context.serviceIfStarted === undefined && (step.needs.has('service') || step.needs.has('links')))
      context.serve(await startService(context, settings));
    if (!neededFrom(steps, i, 'rounds')) await stopRoundServers(context);
    if (!neededFrom(steps, i, 'service')) await stopMain(context);
    const [first] = step.scenarios;
    const runs =
      first !== undefined && !isInRounds(first)
        ? await first.run(context)
        : await measureRounds(context, step.scenarios.filter(isInRounds));
    context.runs.push(...runs);
  }
  await stopRoundServers(context);
  await stopMain(context);
}

/** The variants of the rounds' scenarios, measured in alternating rounds: the runs they could not make first, then theirs. */
async function measureRounds(context: Context, scenarios: readonly InRounds[]): Promise<RunResult[]> {
  const skipped: RunResult[] = [];
  const variants: Variant[] = [];
  for (const scenario of scenarios) {
    const part = await scenario.rounds(context);
    skipped.push(...part.skipped);
    variants.push(...part.variants);
  }
  const measured = variants.length === 0 ? [] : await compare(variants, context.options.seconds, context.options.rounds);
  return [...skipped, ...measured.map(context.record)];
}

async function stopRoundServers(context: Context): Promise<void> {
  for (const server of context.rounds.all.splice(0)) await context.processes.stop(server);
}

async function stopMain(context: Context): Promise<void> {
  const main = context.serviceIfStarted?.main;
  if (main !== undefined && main !== null) await context.processes.stop(main);
}

/** The runs marked and judged, printed as one table, and written as JSON and as an HTML page. */
export async function report(context: Context): Promise<void> {
  const { options, setup, started } = context;
  const runs = markGeneratorLimits(context.runs);
  const { database, redis } = ranOn(context.serviceIfStarted, options);
  const result: SuiteResult = {
    startedAt: started.toISOString(),
    durationSeconds: Math.round((Date.now() - started.getTime()) / 1000),
    machine: thisMachine(),
    settings: {
      database,
      redis,
      url: options.url ?? null,
      links: options.links,
      zipfS: options.zipfS,
      secondsPerRun: options.seconds,
      connections: options.connections,
      generator: setup.generatorNote,
      cpus: setup.cpusNote,
      command: `npm run load -- ${process.argv.slice(2).join(' ')}`.trim().replace(/ --$/, ''),
    },
    runs,
    targets: judgeTargets(runs),
  };
  await mkdir(options.out, { recursive: true });
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  const jsonPath = join(options.out, `${stamp}.json`);
  const htmlPath = join(options.out, `${stamp}.html`);
  await writeFile(jsonPath, `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(htmlPath, renderReport(result));
  console.log(renderTable(result));
  console.log(`\nresults: ${jsonPath}\nreport:  ${htmlPath}`);
}
