// What analytics keeps of a User-Agent: bot or not (isbot), device type, browser and OS families
// (bowser), and a hash that stands for the string in the visitor hash.

import Bowser from 'bowser';
import { isbot } from 'isbot';
import { deviceOf, familyName, UNKNOWN, type Device } from './dimensions.ts';
import { hash32 } from './hll.ts';

export interface Agent {
  readonly bot: boolean;
  readonly device: Device;
  readonly browser: string;
  readonly os: string;
  /** hash32 of the string: the visitor hash reads this instead of the whole string. */
  readonly hash: number;
}

/** What analytics keeps of a request without a User-Agent. */
export const NO_AGENT: Agent = { bot: false, device: 'other', browser: UNKNOWN, os: UNKNOWN, hash: 0 };

/** bowser runs a list of regular expressions: the caller remembers each string's answer (visits.ts). */
export function parseAgent(userAgent: string): Agent {
  // bowser throws on an empty string ("User-Agent:" with no value): what a request without one gets.
  if (userAgent === '') return NO_AGENT;
  const parsed = Bowser.parse(userAgent);
  const bot = isbot(userAgent) || parsed.platform.type === 'bot';
  return {
    bot,
    device: deviceOf(parsed.platform.type, bot),
    browser: familyName(parsed.browser.name),
    os: familyName(parsed.os.name),
    hash: hash32(userAgent, 0x9747b28c),
  };
}
