// Links with rules (a device, a country-and-language and a split, the heaviest common set: every
// fact read) against plain links, on the same service in the same rounds, each sent the same
// browsers' clicks through a proxy, so that the difference is the rules alone; and plain links
// against the release before (--against): link options must not slow them.
//
//   taskset -c 0 npm run load -- --server-cpus 1 --database-cpus 0 --scenario hot,rules --against ../old

import { createApiKey } from '../../src/auth/api-keys.ts';
import { withClient } from '../../test/helpers/db.ts';
import { inRounds, ONLY_LOCAL, skippedInRounds, type InRounds } from '../scenario.ts';
import { hotPaths, seed, warmUp } from '../seeding.ts';
import { mainAnswering } from '../service.ts';
import { ratio } from '../targets.ts';
import { RULED_OPTIONS } from '../traffic.ts';
import { clicking } from '../visitors.ts';
import { againstHot, redirectVariant } from './redirect.ts';

/** Plain links within 3 % of the release before; links with rules at least half as fast as plain ones. */
const HOT_OVER_AGAINST = 0.97;
const RULES_OVER_PLAIN = 0.5;

export const rules: InRounds = {
  name: 'rules',
  needs: ['service', 'processes', 'wrk'],
  // Links with rules answer the split's 302 or a target's; the plain run beside them 302.
  answers: ['302'],
  // Its country rules read X-Forwarded-For: the main service is behind a proxy on loopback.
  serviceSettings: { TRUST_PROXY: 'loopback' },
  targets: [
    (runs) =>
      ratio(`hot ≥ ${HOT_OVER_AGAINST} × hot of --against`, 'hot', againstHot(runs)?.label ?? 'hot · <--against>', HOT_OVER_AGAINST)(runs),
    ratio(`rules ≥ ${RULES_OVER_PLAIN} × plain`, 'rules', 'rules · plain', RULES_OVER_PLAIN),
  ],
  async rounds(context) {
    const { service, options } = context;
    if (service.main === null) return skippedInRounds(context.skip('rules', 'rules', ONLY_LOCAL));
    // Links with options are made with an API key only: one is written into the database.
    const databaseUrl = service.database?.env.DATABASE_URL;
    if (databaseUrl === undefined) {
      const why = 'needs DATABASE_URL (its key is written into the database; the embedded engine is one session, held by the service)';
      return skippedInRounds(context.skip('rules', 'rules', why));
    }
    const key = await withClient(databaseUrl, (client) => createApiKey(client, { name: 'load: links with rules', role: 'member' }));
    context.log(`seeding ${options.links.toLocaleString('en-US')} links with rules through POST ${service.url}/links`);
    const ruled = (await seed(context, service.url, options.links, { options: RULED_OPTIONS, key: key.secret })).map(([code]) => code);
    await warmUp(context, service.url, ruled, 'the links with rules');
    const clicked = clicking(23);
    const ruledClicks = clicked(hotPaths(options, ruled));
    return inRounds(
      redirectVariant(context, 'rules', 'service, links with rules', 'rules', mainAnswering(service), ruledClicks),
      redirectVariant(
        context,
        'rules',
        'service, plain links, the same clicks',
        'rules · plain',
        mainAnswering(service),
        clicked(service.hotPaths),
      ),
    );
  },
};
