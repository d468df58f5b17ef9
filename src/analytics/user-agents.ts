// What analytics keeps of a User-Agent: bot or not (isbot), device type, browser and OS families
// (bowser), and a hash that stands for the string in the visitor hash. Parsing costs about 15 µs
// (bowser on common strings, measured with load/enrich-bench.ts); each distinct string is parsed
// once and remembered, so a click costs one Map lookup.

import Bowser from 'bowser';
import { isbot } from 'isbot';
import { deviceOf, familyName, UNKNOWN, type Device } from '../core/dimensions.ts';
import { hash32 } from '../core/hll.ts';

export interface Agent {
  readonly bot: boolean;
  readonly device: Device;
  readonly browser: string;
  readonly os: string;
  /** hash32 of the string: the visitor hash reads this instead of the whole string. */
  readonly hash: number;
}

/** Distinct User-Agents remembered; past it the memo starts over (no per-hit LRU bookkeeping). */
const AGENTS_MAX = 20_000;
/** Longer strings are parsed each time rather than kept, so made-up ones cannot fill the memo with megabytes. */
const AGENT_MAX_LENGTH = 512;
const NO_AGENT: Agent = { bot: false, device: 'other', browser: UNKNOWN, os: UNKNOWN, hash: 0 };

export class AgentParser {
  #agents = new Map<string, Agent>();

  parse(userAgent: string | undefined): Agent {
    if (userAgent === undefined || userAgent === '') return NO_AGENT;
    let agent = this.#agents.get(userAgent);
    if (agent !== undefined) return agent;
    agent = parseAgent(userAgent);
    if (userAgent.length <= AGENT_MAX_LENGTH) {
      if (this.#agents.size >= AGENTS_MAX) this.#agents.clear();
      this.#agents.set(userAgent, agent);
    }
    return agent;
  }
}

function parseAgent(userAgent: string): Agent {
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
