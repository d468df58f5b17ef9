// Email to people: invitations, address verification and password resets, sent over SMTP (nodemailer)
// to the server SMTP_URL names; without it this service sends no mail and the dashboard hands links over
// instead (mailerOf is null). A send that the server refuses, or that it does not answer in time, is
// MAIL_UNAVAILABLE; the log line says why without the message, its recipient or its link, which holds
// a token that signs in or resets a password.

import type { Logger } from 'pino';
import type { Role } from '../auth/roles.ts';
import type { Config } from '../config/config.ts';
import { escapeHtml } from '../core/html-page.ts';
import { AppError } from '../errors.ts';

export interface MailerOptions {
  /** smtp://user:pass@host:587 (STARTTLS when the server offers it) or smtps://… (TLS from the first byte). */
  url: string;
  /** The From header: `name <address>`. */
  from: string;
  /** How long connecting, the greeting and each answer of the server may take. */
  timeoutMs?: number;
}

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export type MailContent = Omit<Mail, 'to'>;

const DEFAULT_TIMEOUT_MS = 10_000;

type Transport = ReturnType<(typeof import('nodemailer'))['createTransport']>;

export class Mailer {
  readonly #options: MailerOptions;
  /** nodemailer, loaded at the first message: about 9 MB of resident memory a process that sends none does without. */
  #transport: Promise<Transport> | null = null;
  readonly #log: Logger;

  constructor(options: MailerOptions, log: Logger) {
    this.#options = options;
    this.#log = log;
  }

  #transportNow(): Promise<Transport> {
    this.#transport ??= import('nodemailer').then(({ createTransport }) => {
      const timeout = this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      return createTransport(
        {
          url: this.#options.url,
          connectionTimeout: timeout,
          greetingTimeout: timeout,
          socketTimeout: timeout,
          dnsTimeout: timeout,
          // nodemailer's own logger would write the conversation, the message included.
          logger: false,
          debug: false,
        },
        { from: this.#options.from },
      );
    });
    return this.#transport;
  }

  /** Hands the message to the SMTP server; rejects with MAIL_UNAVAILABLE when it does not take it. */
  async send(mail: Mail): Promise<void> {
    try {
      await (await this.#transportNow()).sendMail(mail);
    } catch (err) {
      const { code, responseCode, command } = err as { code?: unknown; responseCode?: unknown; command?: unknown };
      this.#log.warn({ code, responseCode, command }, 'mail not sent: the SMTP server refused it or did not answer');
      throw new AppError('MAIL_UNAVAILABLE');
    }
  }

  close(): void {
    void this.#transport?.then((transport) => transport.close());
  }
}

/** The mailer SMTP_URL asks for, or null when it is unset: no mail. */
export function mailerOf(config: Pick<Config, 'smtpUrl' | 'mailFrom'>, log: Logger): Mailer | null {
  if (config.smtpUrl === undefined) return null;
  return new Mailer({ url: config.smtpUrl, from: config.mailFrom }, log);
}

// ---------------------------------------------------------------------------------------------
// The messages: plain text, and the same words as HTML with every value escaped.

const ROLE_WORDS: Readonly<Record<Role, string>> = {
  admin: 'an admin (everything in the workspace, its members included)',
  member: 'a member (creating links and changing your own)',
  viewer: 'a viewer (reading links and their statistics)',
};

const WHEN = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });

function until(date: Date): string {
  return `${WHEN.format(date)} UTC`;
}

/** A header holds one line: a value with a line break in it would start another header. */
function oneLine(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ').trim();
}

function hello(name: string): string {
  const trimmed = oneLine(name);
  return trimmed === '' ? 'Hello,' : `Hello ${trimmed},`;
}

/**
 * A message of paragraphs, each a list of pieces: a string is text, `{ link }` a link shown as its URL.
 * The text part joins them as they are; the HTML part escapes each string and wraps each link.
 */
type Piece = string | { link: string };

function message(subject: string, paragraphs: readonly (readonly Piece[])[]): MailContent {
  const text = paragraphs.map((pieces) => pieces.map((piece) => (typeof piece === 'string' ? piece : piece.link)).join('')).join('\n\n');
  const body = paragraphs
    .map(
      (pieces) =>
        `<p>${pieces.map((piece) => (typeof piece === 'string' ? escapeHtml(piece).replaceAll('\n', '<br>\n') : anchor(piece.link))).join('')}</p>`,
    )
    .join('\n');
  const html = `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>\n<body>\n${body}\n</body>\n</html>\n`;
  return { subject, text: `${text}\n`, html };
}

function anchor(url: string): string {
  const escaped = escapeHtml(url);
  return `<a href="${escaped}">${escaped}</a>`;
}

export function invitationMail(invitation: {
  workspaceName: string;
  inviterName: string | null;
  role: Role;
  url: string;
  expiresAt: Date;
}): MailContent {
  const workspace = oneLine(invitation.workspaceName);
  const inviter = invitation.inviterName === null ? '' : oneLine(invitation.inviterName);
  const invited = inviter === '' ? 'You are invited' : `${inviter} invited you`;
  return message(`You are invited to ${workspace}`, [
    ['Hello,'],
    [`${invited} to the workspace "${workspace}" as ${ROLE_WORDS[invitation.role]}.`],
    ['To accept, open this link:\n', { link: invitation.url }],
    [`It works once, until ${until(invitation.expiresAt)}. If you did not expect this invitation, ignore this message.`],
  ]);
}

export function verifyEmailMail(verification: { name: string; url: string }): MailContent {
  return message('Confirm your email address', [
    [hello(verification.name)],
    ['To confirm that this address is yours, open this link:\n', { link: verification.url }],
    ['If you did not ask for this, ignore this message.'],
  ]);
}

export function resetPasswordMail(reset: { name: string; url: string; expiresAt: Date }): MailContent {
  return message('Reset your password', [
    [hello(reset.name)],
    [
      'Someone asked to reset the password of the account with this email address. To choose a new password, open this link:\n',
      { link: reset.url },
    ],
    [`It works once, until ${until(reset.expiresAt)}. If you did not ask for this, ignore this message: your password stays as it is.`],
  ]);
}
