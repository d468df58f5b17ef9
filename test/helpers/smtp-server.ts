// A real SMTP server on 127.0.0.1 for tests (smtp-server, the library nodemailer's author keeps beside
// it): it takes every message, with or without a login (any user name and password pass, and are kept in
// `logins`), over plain SMTP (no STARTTLS offered), and parses each with mailparser, so that a test reads
// what a mail client would show: recipient, subject, text and HTML, and the links in them.

import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export type { ParsedMail } from 'mailparser';

export interface TestSmtpServer {
  /** smtp://127.0.0.1:<port>, for SMTP_URL or a Mailer. */
  readonly url: string;
  /** Every message taken, parsed, in the order they came. */
  readonly messages: ParsedMail[];
  /** The user names and passwords clients logged in with. */
  readonly logins: { username: string; password: string }[];
  /**
   * The first message not yet returned by next() that matches `predicate` (any, without one), taken
   * already or the next to come; rejects after `timeoutMs` (5 s) without one.
   */
  next(predicate?: (mail: ParsedMail) => boolean, timeoutMs?: number): Promise<ParsedMail>;
  close(): Promise<void>;
}

interface Waiter {
  matches: (mail: ParsedMail) => boolean;
  resolve: (mail: ParsedMail) => void;
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const messages: ParsedMail[] = [];
  const logins: { username: string; password: string }[] = [];
  const returned = new Set<ParsedMail>();
  const waiters = new Set<Waiter>();

  const take = (mail: ParsedMail): void => {
    messages.push(mail);
    for (const waiter of waiters) {
      if (!waiter.matches(mail)) continue;
      waiters.delete(waiter);
      returned.add(mail);
      waiter.resolve(mail);
      return;
    }
  };

  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
      callback(null, { user: auth.username });
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          take(mail);
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    logins,
    next(predicate = () => true, timeoutMs = 5000) {
      const found = messages.find((mail) => !returned.has(mail) && predicate(mail));
      if (found !== undefined) {
        returned.add(found);
        return Promise.resolve(found);
      }
      return new Promise<ParsedMail>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no such message came to the SMTP server within ${timeoutMs} ms (${messages.length} came)`));
        }, timeoutMs);
        const waiter: Waiter = {
          matches: predicate,
          resolve: (mail) => {
            clearTimeout(timer);
            resolve(mail);
          },
        };
        waiters.add(waiter);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The first http(s) URL of the message's text part whose whole text, or whose path and query, begins
 * with `prefix` (`/app/invitation?token=` or `https://sho.rt/app/invitation`); throws when there is none.
 */
export function linkIn(mail: ParsedMail, prefix: string): string {
  for (const [url] of (mail.text ?? '').matchAll(/https?:\/\/[^\s<>"]+/g)) {
    const parsed = URL.parse(url);
    if (url.startsWith(prefix) || (parsed !== null && `${parsed.pathname}${parsed.search}`.startsWith(prefix))) return url;
  }
  throw new Error(`no link beginning with ${prefix} in the message's text:\n${mail.text ?? '(no text part)'}`);
}
