// A real DNS server on loopback (dns2, over UDP) answering TXT questions from a table the test
// changes as it goes: what domain verification reads through node:dns (DOMAIN_DNS_RESOLVERS).
// A name with no records answers NXDOMAIN; silent() makes it drop every question (a resolver down).
// dns2 is loaded when a server is started, so that a file importing this runs where it is missing.

export interface DnsServer {
  /** `127.0.0.1:<port>`, as DOMAIN_DNS_RESOLVERS takes it. */
  readonly address: string;
  /** The TXT records of `name` (each one string); none: NXDOMAIN. */
  set(name: string, ...values: string[]): void;
  remove(name: string): void;
  /** Answer nothing from now on (true) or again (false). */
  silent(on: boolean): void;
  /** Questions asked so far, by name. */
  readonly asked: string[];
  close(): Promise<void>;
}

export async function startDnsServer(): Promise<DnsServer> {
  const { default: dns2 } = await import('dns2');
  const { Packet } = dns2;
  const records = new Map<string, string[]>();
  const asked: string[] = [];
  let quiet = false;
  const server = dns2.createUDPServer((request, send) => {
    const [question] = request.questions;
    if (question === undefined || quiet) return;
    const name = question.name.toLowerCase();
    asked.push(name);
    const response = Packet.createResponseFromRequest(request);
    const values = records.get(name);
    if (values === undefined) response.header.rcode = Packet.RCODE.NXDOMAIN;
    else if (question.type === Packet.TYPE.TXT) {
      for (const data of values) {
        const answer = { name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data };
        response.answers.push(answer as (typeof response.answers)[number]);
      }
    }
    void send(response);
  });
  await server.listen(0, '127.0.0.1');
  const { port } = server.address();
  return {
    address: `127.0.0.1:${port}`,
    set: (name, ...values) => records.set(name.toLowerCase(), values),
    remove: (name) => records.delete(name.toLowerCase()),
    silent: (on) => {
      quiet = on;
    },
    asked,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
