// The fast path's answers as the bytes node:http would write for them (fast-path.ts): the same
// status line, the same headers in the same order, the same Connection and Keep-Alive, so that a
// client cannot tell which of the two answered (test/edge/fast-path-differential.test.ts compares them).

import { STATUS_CODES } from 'node:http';
import { privateCacheControl, type Prebuilt } from './respond.ts';

export interface RawAnswers {
  /** A 302 to `url`, as createEntryWriter writes it (no Date). */
  redirect(url: string, close: boolean): string;
  /** A link's redirect with the status its rules chose, as createRedirectWriter writes it (private if `personal`). */
  redirectWith(status: number, url: string, close: boolean, personal: boolean): string;
  /** An error answer, as writePrebuilt writes it (with Date); a HEAD gets no body. */
  prebuilt(answer: Prebuilt, head: boolean, close: boolean): string;
}

/** `keepAliveTimeoutMs` as node:http announces it (Keep-Alive: timeout=, in whole seconds). */
export function rawAnswers(cacheControl: string, keepAliveTimeoutMs: number): RawAnswers {
  const keepAlive = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(keepAliveTimeoutMs / 1000)}\r\n\r\n`;
  const close = 'Connection: close\r\n\r\n';
  const before = 'HTTP/1.1 302 Found\r\nlocation: ';
  const after = `\r\ncache-control: ${cacheControl}\r\ncontent-length: 0\r\n`;
  const afterKept = after + keepAlive;
  const afterClosed = after + close;
  const own = `\r\ncache-control: ${privateCacheControl(cacheControl)}\r\ncontent-length: 0\r\n`;
  const ownKept = own + keepAlive;
  const ownClosed = own + close;
  // Weak: a link's preview page is an answer of its own, gone with the link's cache entry.
  const texts = new WeakMap<Prebuilt, { head: string; body: string }>();
  const textOf = (answer: Prebuilt): { head: string; body: string } => {
    let text = texts.get(answer);
    if (text === undefined) {
      let head = `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n`;
      for (let i = 0; i < answer.head.length; i += 2) head += `${answer.head[i]}: ${answer.head[i + 1]}\r\n`;
      // The socket is written in latin1, one character a byte: the body's UTF-8 bytes, as node:http sends them.
      text = { head, body: Buffer.from(answer.body, 'utf8').toString('latin1') };
      texts.set(answer, text);
    }
    return text;
  };
  const statusLines = new Map<number, string>();
  const statusLine = (status: number): string => {
    let line = statusLines.get(status);
    if (line === undefined) {
      line = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nlocation: `;
      statusLines.set(status, line);
    }
    return line;
  };
  return {
    redirect: (url, closing) => before + url + (closing ? afterClosed : afterKept),
    redirectWith: (status, url, closing, personal) =>
      statusLine(status) + url + (personal ? (closing ? ownClosed : ownKept) : closing ? afterClosed : afterKept),
    prebuilt(answer, head, closing) {
      const text = textOf(answer);
      return `${text.head}Date: ${httpDate()}\r\n${closing ? close : keepAlive}${head ? '' : text.body}`;
    },
  };
}

let dateText = '';
let dateSecond = -1;

/** The Date header's value, made once a second as node:http does. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}
