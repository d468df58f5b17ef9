// Which scenarios run, in what order, in which steps, and what each step needs: pure, so that the
// rules are tested without a server (test/load/plan.test.ts).

import type { Ground } from './context.ts';
import { isInRounds, needsOf, type Resource, type Scenario } from './scenario.ts';

/** One scenario measured on its own, or consecutive scenarios of the redirect rounds, measured together. */
export interface Step {
  readonly scenarios: readonly Scenario[];
  readonly inRounds: boolean;
  /** What its scenarios need; a step of the rounds needs their servers ('rounds'). */
  readonly needs: ReadonlySet<Resource>;
}

/** The scenarios `names` and every scenario they need, in the order of `all` (the order they run in). */
export function choose(all: readonly Scenario[], names: readonly string[], ground: Ground): Scenario[] {
  const chosen = new Set<Scenario>();
  const add = (scenario: Scenario): void => {
    if (chosen.has(scenario)) return;
    chosen.add(scenario);
    for (const need of needsOf(scenario, ground)) if (typeof need !== 'string') add(need);
  };
  for (const name of names) {
    const scenario = all.find((s) => s.name === name);
    if (scenario === undefined) throw new Error(`unknown scenario "${name}"`);
    add(scenario);
  }
  return all.filter((scenario) => chosen.has(scenario));
}

/** The chosen scenarios in steps: each on its own, but consecutive ones of the redirect rounds in one. */
export function stepsOf(chosen: readonly Scenario[], ground: Ground): Step[] {
  const steps: Scenario[][] = [];
  for (const scenario of chosen) {
    const last = steps.at(-1);
    if (isInRounds(scenario) && last !== undefined && isInRounds(last[0] as Scenario)) last.push(scenario);
    else steps.push([scenario]);
  }
  return steps.map((scenarios) => {
    const together = isInRounds(scenarios[0] as Scenario);
    const needs = new Set<Resource>(together ? ['rounds'] : []);
    for (const scenario of scenarios) for (const need of needsOf(scenario, ground)) if (typeof need === 'string') needs.add(need);
    return { scenarios, inRounds: together, needs };
  });
}

/** Whether a step from `from` on needs `resource`: once none does, it goes. */
export function neededFrom(steps: readonly Step[], from: number, resource: Resource): boolean {
  return steps.slice(from).some((step) => step.needs.has(resource));
}

/** The settings the main service is started with: those that the chosen scenarios need of it. */
export function serviceSettings(chosen: readonly Scenario[]): Record<string, string> {
  return Object.assign({}, ...chosen.map((scenario) => scenario.serviceSettings ?? {})) as Record<string, string>;
}
