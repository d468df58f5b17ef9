// Redirects with creates among them: 19 redirects, then one create, over and over (95 % / 5 %), on
// the main service.
//
//   npm run load -- --scenario mixed

import { measure } from '../measure.ts';
import type { OnItsOwn } from '../scenario.ts';
import { mainAnswering } from '../service.ts';
import { fixed, post, targetUrl } from '../traffic.ts';

export const mixed: OnItsOwn = {
  name: 'mixed',
  needs: ['service'],
  answers: ['302', '201'],
  async run(context) {
    const { service, options } = context;
    const requests = service.hotPaths.map((request, i) =>
      i % 20 === 19 ? post('/links', { url: targetUrl(options.links + i) }) : request,
    );
    const run = await measure(
      {
        scenario: 'mixed',
        variant: 'service',
        label: 'mixed',
        ...mainAnswering(service),
        connections: options.connections,
        requests: fixed(requests),
      },
      options.seconds,
    );
    return [context.record(run)];
  },
};
