// The process: config, then either serve here (WORKERS=1) or, as a node:cluster primary, run
// WORKERS processes that each serve (src/cluster.ts). Run `node src/server.ts` directly (not
// through npm or a shell) so that the signal reaches it.

import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { runPrimary } from './cluster.ts';
import { ConfigError, DEV_CODE_SECRET, loadConfig, type Config } from './config.ts';
import { createLogger } from './logger.ts';
import { serve } from './serve.ts';

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    return process.exit(78); // EX_CONFIG
  }
}

const config = readConfig();
if (config.workers === 1) {
  const log = createLogger(config.logLevel);
  warnOnDevSecret(config, log);
  await serve(config, log, { migrate: true });
} else if (cluster.isPrimary) {
  const log = createLogger(config.logLevel, { pid: process.pid, role: 'primary' });
  warnOnDevSecret(config, log);
  await runPrimary(config, log);
} else {
  const log = createLogger(config.logLevel, { pid: process.pid, role: 'worker', worker: cluster.worker?.id });
  await serve(config, log, { migrate: false });
}

function warnOnDevSecret({ codeSecret }: Config, log: Logger): void {
  if (codeSecret === DEV_CODE_SECRET) {
    log.warn('CODE_SECRET is the development default: set your own so that codes cannot be predicted');
  }
}
