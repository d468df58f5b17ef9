// HTTP as bytes on a socket, for tests whose requests fetch() and http.request() would refuse,
// re-encode or finish: raw bytes in the request line, dripped headers, paths as written.

import net from 'node:net';

export interface RawResponse {
  status: number;
  /** Lower-case names. */
  headers: Map<string, string>;
  body: string;
  /** Characters of the connection this response took: the next one starts after them. */
  length: number;
}

/**
 * The first response in `text` (read as latin1), or undefined while its head is incomplete, or
 * its body is (by content-length) unless `headOnly`: the answer to a HEAD has no body, except
 * an error written before the request could be parsed as one.
 */
export function parseResponse(text: string, headOnly = false): RawResponse | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers = new Map(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const;
    }),
  );
  const length = Number(headers.get('content-length') ?? 0);
  if (!headOnly && text.length < end + 4 + length) return undefined;
  const body = text.slice(end + 4, end + 4 + length);
  return { status: Number(statusLine.split(' ')[1]), headers, body, length: end + 4 + body.length };
}

/**
 * Writes `request` to 127.0.0.1:`port` and reads until the server closes the connection (ask it
 * to, with Connection: close), or `timeoutMs` passes. Not end(): a client that half-closes may see
 * its connection closed before an answer that needed a lookup.
 */
export function rawExchange(port: number, request: Buffer, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.setTimeout(timeoutMs, () => socket.destroy());
    socket.write(request);
  });
}
