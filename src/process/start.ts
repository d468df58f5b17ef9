// The process: config, then either serve here (WORKERS=1) or, as a node:cluster primary, run
// WORKERS processes that each serve (src/process/cluster.ts). Loaded by src/process/main.ts, the
// entry, once the compile cache is on. The one place the process exits.

// First: it must hold a tick object before anything else runs (see the file).
// oxlint-disable-next-line import/no-unassigned-import
import './tick-shape.ts';
import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { runPrimary } from './cluster.ts';
import { ConfigError, isPublishedSecret, loadConfig, servingSecretProblem, type Config } from '../config/config.ts';
import { createLogger } from './logger.ts';
import { serve } from './serve.ts';

const EX_CONFIG = 78;

async function main(): Promise<number> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    return EX_CONFIG;
  }
  const secretProblem = servingSecretProblem(config);
  if (secretProblem !== null) {
    console.error(`invalid configuration:\n  ${secretProblem}`);
    return EX_CONFIG;
  }
  if (config.workers === 1) {
    const log = createLogger(config);
    warnOnDevSecret(config, log);
    return serve(config, log, { migrate: true });
  }
  if (cluster.isPrimary) {
    const log = createLogger(config, { pid: process.pid, role: 'primary' });
    warnOnDevSecret(config, log);
    return runPrimary(config, log);
  }
  const log = createLogger(config, { pid: process.pid, role: 'worker', worker: cluster.worker?.id });
  return serve(config, log, { migrate: false });
}

// Accepted only on a development machine (servingSecretProblem): still said, in case it is not one.
function warnOnDevSecret({ codeSecret }: Config, log: Logger): void {
  if (isPublishedSecret(codeSecret)) {
    log.warn('CODE_SECRET is the development default or a placeholder: set your own so that codes cannot be predicted');
  }
}

process.exit(await main());
