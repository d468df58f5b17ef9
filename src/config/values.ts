// The values some settings take, and the checks two of them share.

import { urlOf } from './schema.ts';

export const DEV_CODE_SECRET = 'dev-only-secret-change-me-in-production';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export const CLICK_STREAMS = ['off', 'redis'] as const;

export const isPostgresUrl = urlOf(['postgres:', 'postgresql:']);
export const isRedisUrl = urlOf(['redis:', 'rediss:']);
