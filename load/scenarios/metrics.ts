// What /metrics costs the hot path: the same service with METRICS_ENABLED=false, in the same rounds.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run load -- --scenario hot,metrics --seconds 12 --rounds 6

import type { OnItsOwn } from '../scenario.ts';
import { hotSideBySide } from '../side-by-side.ts';
import { ratio } from '../targets.ts';

export const metrics: OnItsOwn = {
  name: 'metrics',
  needs: ['links', 'processes'],
  answers: ['302'],
  targets: [ratio('metrics on ≥ 0.95 × off', 'metrics', 'metrics · off', 0.95)],
  async run(context) {
    // Both count clicks, so requests carry a browser's User-Agent, as real clicks do.
    const browser = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
    return hotSideBySide(
      context,
      'metrics',
      [
        { variant: 'METRICS_ENABLED=true', label: 'metrics', env: { METRICS_ENABLED: 'true' } },
        { variant: 'METRICS_ENABLED=false', label: 'metrics · off', env: { METRICS_ENABLED: 'false' } },
      ],
      context.service.hotPaths.map((request) => ({ ...request, headers: { 'user-agent': browser } })),
      'METRICS_ENABLED',
    );
  },
};
