// A real DNS server on loopback (dns2, over UDP) answering from a table the test changes as it
// goes: what domain verification (TXT) and the domain check (CNAME, A, AAAA) read through node:dns
// (DOMAIN_DNS_RESOLVERS). A name with no records answers NXDOMAIN; a question of a type the name
// lacks, no answer (NODATA). A question for a name with a CNAME is answered as a recursive resolver
// does: the chain, then the last name's records of that type. silent() makes it drop every question
// (a resolver down). dns2 is loaded when a server is started, so that a file importing this runs
// where it is missing.

export type RecordType = 'TXT' | 'A' | 'AAAA' | 'CNAME';

export interface DnsServer {
  /** `127.0.0.1:<port>`, as DOMAIN_DNS_RESOLVERS takes it. */
  readonly address: string;
  /** The TXT records of `name` (each one string); none: NXDOMAIN. */
  set(name: string, ...values: string[]): void;
  /** The records of `name` of one type (its others are kept); none: the type removed. */
  setRecords(name: string, type: RecordType, ...values: string[]): void;
  remove(name: string): void;
  /** Answer nothing from now on (true) or again (false). */
  silent(on: boolean): void;
  /** Questions asked so far, by name. */
  readonly asked: string[];
  close(): Promise<void>;
}

/** CNAMEs followed at most in one answer. */
const CHAIN_MAX = 8;

export async function startDnsServer(): Promise<DnsServer> {
  const { default: dns2 } = await import('dns2');
  const { Packet } = dns2;
  const records = new Map<string, Map<RecordType, string[]>>();
  const asked: string[] = [];
  let quiet = false;
  const TYPES: Record<number, RecordType | undefined> = {
    [Packet.TYPE.TXT]: 'TXT',
    [Packet.TYPE.A]: 'A',
    [Packet.TYPE.AAAA]: 'AAAA',
    [Packet.TYPE.CNAME]: 'CNAME',
  };
  const rdata = (type: RecordType, value: string) =>
    type === 'TXT' ? { data: value } : type === 'CNAME' ? { domain: value } : { address: value };
  const server = dns2.createUDPServer((request, send) => {
    const [question] = request.questions;
    if (question === undefined || quiet) return;
    const name = question.name.toLowerCase();
    asked.push(name);
    const response = Packet.createResponseFromRequest(request);
    const asks = TYPES[question.type];
    const answer = (owner: string, type: RecordType, value: string) => {
      const record = { name: owner, type: Packet.TYPE[type], class: Packet.CLASS.IN, ttl: 1, ...rdata(type, value) };
      response.answers.push(record as unknown as (typeof response.answers)[number]);
    };
    if (!records.has(name)) response.header.rcode = Packet.RCODE.NXDOMAIN;
    else if (asks !== undefined) {
      let owner = name;
      for (let hop = 0; hop <= CHAIN_MAX; hop++) {
        const own = records.get(owner);
        const alias = own?.get('CNAME')?.[0];
        if (alias === undefined || asks === 'CNAME') {
          for (const value of own?.get(asks) ?? []) answer(owner, asks, value);
          break;
        }
        answer(owner, 'CNAME', alias);
        owner = alias.toLowerCase();
      }
    }
    void send(response);
  });
  await server.listen(0, '127.0.0.1');
  const { port } = server.address();
  const setRecords = (name: string, type: RecordType, ...values: string[]) => {
    const own = records.get(name.toLowerCase()) ?? new Map<RecordType, string[]>();
    if (values.length === 0) own.delete(type);
    else own.set(type, values);
    if (own.size === 0) records.delete(name.toLowerCase());
    else records.set(name.toLowerCase(), own);
  };
  return {
    address: `127.0.0.1:${port}`,
    set: (name, ...values) => records.set(name.toLowerCase(), new Map([['TXT', values]])),
    setRecords,
    remove: (name) => records.delete(name.toLowerCase()),
    silent: (on) => {
      quiet = on;
    },
    asked,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
