// Reads the TXT records that prove control of a domain, with node:dns against the configured
// servers (DOMAIN_DNS_RESOLVERS; none: the system's). A name with no record, or records that do not
// hold the token, is 'absent'; servers that do not answer (a timeout, SERVFAIL, a refusal) leave
// the question 'unanswered', so that an outage of DNS never flags or stops a domain.

import { Resolver } from 'node:dns/promises';
import { recordName, recordsHold, type CheckOutcome } from '../core/domain-verification.ts';

/** A look-up's outcome, and what it saw (for the message of a failed check). */
export interface RecordCheck {
  readonly outcome: CheckOutcome;
  readonly seen: string;
}

export interface RecordChecker {
  (host: string, token: string): Promise<RecordCheck>;
  /** Ends the look-ups under way at once (they answer 'unanswered'): a stop does not wait for DNS. */
  cancel(): void;
}

/** Answers that say the name has no TXT record (NXDOMAIN, NODATA). */
const NO_RECORD = new Set(['ENOTFOUND', 'ENODATA']);
/** Per server and try; two tries. */
const TIMEOUT_MS = 2000;

export function dnsRecordChecker(servers: readonly string[]): RecordChecker {
  const resolver = new Resolver({ timeout: TIMEOUT_MS, tries: 2 });
  if (servers.length > 0) resolver.setServers([...servers]);
  const check = async (host: string, token: string): Promise<RecordCheck> => {
    const name = recordName(host);
    try {
      const records = await resolver.resolveTxt(name);
      if (recordsHold(records, token)) return { outcome: 'found', seen: 'the token' };
      const values = records.map((chunks) => JSON.stringify(chunks.join(''))).slice(0, 5);
      return { outcome: 'absent', seen: `TXT ${name} holds ${values.join(', ')}, not the token` };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'an error';
      if (NO_RECORD.has(code)) return { outcome: 'absent', seen: `no TXT record ${name} (${code})` };
      return { outcome: 'unanswered', seen: `the DNS servers answered ${code}` };
    }
  };
  return Object.assign(check, { cancel: () => resolver.cancel() });
}
