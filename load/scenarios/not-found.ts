// A scanner: distinct codes of the generated shape, none of them a link, never repeated (each
// round has its own), and more of them than can be asked for in a round. The baseline answers the
// same codes with the same 404 bytes: a 404 costs autocannon more than a 302 (it reads a body), and
// this shows how much.
//
//   npm run load -- --scenario hot,not-found

import { WARMUP_MS, type Variant } from '../measure.ts';
import { inRounds, type InRounds } from '../scenario.ts';
import { mainAnswering, serverAnswering } from '../service.ts';
import { ratio, withDetail } from '../targets.ts';
import { codePaths, randomCodes, seededRandom } from '../traffic.ts';

/**
 * More than any scanner run here has reached (autocannon's ceiling is ~30k req/s with 404
 * bodies; wrk -t1 with its Lua script ~110k req/s on one core); sizes the list of distinct
 * unknown codes, so that no code is asked for twice.
 */
const MAX_SCANNER_RPS = { autocannon: 40_000, wrk: 150_000 };

export const notFound: InRounds = {
  name: 'not-found',
  needs: ['service', 'wrk'],
  answers: ['404'],
  targets: [
    (runs) => {
      const [notFoundBase, base] = [runs.find('not-found · baseline'), runs.find('baseline')];
      return withDetail(
        ratio('not-found ≥ 0.80 × hot', 'not-found', 'hot', 0.8)(runs),
        notFoundBase !== undefined && base !== undefined && runs.invalid(notFoundBase) === undefined
          ? `baseline: its 404s ${(notFoundBase.rps / base.rps).toFixed(2)}× its 302s; service 404s ${(
              (runs.find('not-found')?.rps ?? 0) / notFoundBase.rps
            ).toFixed(2)}× baseline 404s`
          : undefined,
      );
    },
  ],
  async rounds(context) {
    const { service, options, setup } = context;
    const scanner = context.driver('not-found');
    const perRound = Math.ceil(
      MAX_SCANNER_RPS[setup.wrk === null ? 'autocannon' : 'wrk'] * (options.seconds / options.rounds + WARMUP_MS / 1000),
    );
    const random = randomCodes(perRound * options.rounds, service.codes[0]?.length ?? 7, seededRandom(2), new Set(service.codes));
    const lists = Array.from({ length: options.rounds }, (_, round) => codePaths(random.slice(round * perRound, (round + 1) * perRound)));
    const scan = (round: number) => lists[round] ?? [];
    // autocannon stops at the end of the list; wrk runs for its time (the list is longer than it can ask for).
    const bound = scanner.wrk === undefined ? { amount: perRound } : {};
    const scanning = { connections: options.connections, requests: scan, ...bound, ...scanner };
    const variants: Variant[] = [{ scenario: 'not-found', variant: 'service', label: 'not-found', ...mainAnswering(service), ...scanning }];
    const baseline = context.rounds.baseline;
    if (baseline !== undefined) {
      variants.push({
        scenario: 'not-found',
        variant: 'baseline (node:http + Map)',
        label: 'not-found · baseline',
        ...serverAnswering(baseline),
        ...scanning,
      });
    }
    return inRounds(...variants);
  },
};
