// Email to people (invitations, address verification, password resets): the SMTP server and the sender.
// Part of SETTINGS (config.ts), in the order of docs/configuration.md's table.

import { isIP } from 'node:net';
import { Type } from 'typebox';
import { optional, type Settings } from './schema.ts';

/** smtp:// or smtps:// with a host; credentials, a port and nodemailer's query options may follow. */
function isSmtpUrl(raw: string): boolean {
  const url = URL.parse(raw);
  return url !== null && (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '';
}

const ADDRESS = /^[^\s<>@",;]+@[^\s<>@",;]+$/;

/** `address@host`, or `Display Name <address@host>`: one mailbox, on one line. */
function isMailbox(raw: string): boolean {
  const named = /^([^<>\p{Cc}]*)<([^<>]*)>$/u.exec(raw);
  return ADDRESS.test(named === null ? raw : (named[2] ?? ''));
}

/** The host of BASE_URL as the domain of an address: an IP address in brackets (RFC 5321 address literal). */
function mailDomain(baseUrl: string): string {
  const host = new URL(baseUrl).hostname;
  return isIP(host) === 4 ? `[${host}]` : host;
}

export const MAIL_SETTINGS = {
  smtpUrl: {
    env: 'SMTP_URL',
    secret: true,
    schema: optional(Type.Refine(Type.String(), isSmtpUrl)),
    expected: 'an smtp:// or smtps:// URL such as smtp://user:pass@mail.example.com:587',
    doc:
      'the SMTP server that sends invitations, address verifications and password resets: ' +
      '`smtp://user:pass@host:587` (STARTTLS when the server offers it) or `smtps://…:465` (TLS from the start); ' +
      'unset: no mail, and the dashboard shows links to pass on instead. See [Email](#email)',
  },
  mailFrom: {
    env: 'MAIL_FROM',
    schema: Type.Refine(Type.String(), isMailbox),
    fallback: ({ baseUrl }: { readonly baseUrl: string }) => `shortener <no-reply@${mailDomain(baseUrl)}>`,
    expected: 'one address, or a name and an address: Shortener <no-reply@sho.rt>',
    shownDefault: '`shortener <no-reply@$BASE_URL host>`',
    doc: 'the sender of that mail; use an address of a domain the SMTP server may send for, or it may be refused or taken for spam',
  },
} satisfies Settings;
