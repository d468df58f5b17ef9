// Email to people (src/people/mail.ts) through a real SMTP server on loopback (test/helpers/smtp-server.ts),
// read back as a mail client would: who it is for, its subject, its link in both parts, every value escaped
// in the HTML; a server that refuses or never answers is MAIL_UNAVAILABLE, soon, and the log line that says
// so holds neither the message nor its link. And SMTP_URL and MAIL_FROM as the configuration reads them.

import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { pino } from 'pino';
import { SMTPServer } from 'smtp-server';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { isAppError } from '../../src/errors.ts';
import { invitationMail, Mailer, mailerOf, resetPasswordMail, verifyEmailMail } from '../../src/people/mail.ts';
import { linkIn, startSmtpServer, type ParsedMail } from '../helpers/smtp-server.ts';

const FROM = 'Shortener <no-reply@sho.rt>';
const EXPIRES = new Date('2031-03-04T05:06:00Z');

function logged(): { log: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) }), lines };
}

async function smtp(t: TestContext) {
  const server = await startSmtpServer();
  t.after(() => server.close());
  return server;
}

function mailer(t: TestContext, url: string, options: { timeoutMs?: number } = {}) {
  const { log, lines } = logged();
  const sender = new Mailer({ url, from: FROM, ...options }, log);
  t.after(() => sender.close());
  return { sender, lines };
}

const recipientOf = (mail: ParsedMail) => (Array.isArray(mail.to) ? mail.to[0] : mail.to)?.value[0]?.address;

test('an invitation arrives for its recipient, its link in both parts and every value escaped in the HTML', async (t) => {
  const server = await smtp(t);
  const { sender } = mailer(t, server.url);
  const url = 'https://sho.rt/app/invitation?token=abc_DEF-123&x=1';
  await sender.send({
    to: 'grace@example.com',
    ...invitationMail({ workspaceName: '<b>&co', inviterName: 'Ada "A" Lovelace', role: 'member', url, expiresAt: EXPIRES }),
  });
  const mail = await server.next();
  assert.equal(recipientOf(mail), 'grace@example.com');
  assert.equal(mail.from?.text, '"Shortener" <no-reply@sho.rt>');
  assert.equal(mail.subject, 'You are invited to <b>&co');
  assert.equal(linkIn(mail, '/app/invitation?token='), url);
  assert.equal(linkIn(mail, 'https://sho.rt/app/invitation'), url);
  assert.match(mail.text ?? '', /Ada "A" Lovelace invited you to the workspace "<b>&co" as a member/);
  assert.match(mail.text ?? '', /until 4 March 2031 at 05:06 UTC/);
  assert.match(mail.text ?? '', /If you did not expect this invitation, ignore this message/);
  const html = typeof mail.html === 'string' ? mail.html : '';
  assert.ok(html.includes('href="https://sho.rt/app/invitation?token=abc_DEF-123&amp;x=1"'), html);
  assert.ok(html.includes('&quot;&lt;b&gt;&amp;co&quot;') && html.includes('Ada &quot;A&quot; Lovelace'), html);
  assert.equal(html.includes('<b>'), false, 'no markup from a value');
});

test('an invitation without an inviter, a verification and a reset each carry their link and say what to do if unasked', async (t) => {
  const server = await smtp(t);
  const { sender } = mailer(t, server.url);
  const invitation = invitationMail({
    workspaceName: 'Acme',
    inviterName: null,
    role: 'viewer',
    url: 'https://sho.rt/app/invitation?token=i1',
    expiresAt: EXPIRES,
  });
  const verify = verifyEmailMail({ name: 'Grace', url: 'https://sho.rt/app/verify-email?token=v1' });
  const reset = resetPasswordMail({ name: '', url: 'https://sho.rt/app/reset-password?token=r1', expiresAt: EXPIRES });
  for (const content of [invitation, verify, reset]) await sender.send({ to: 'grace@example.com', ...content });

  const invited = await server.next((mail) => mail.subject === 'You are invited to Acme');
  assert.match(invited.text ?? '', /^Hello,\n\nYou are invited to the workspace "Acme" as a viewer/);
  assert.equal(linkIn(invited, '/app/invitation?token='), 'https://sho.rt/app/invitation?token=i1');

  const verification = await server.next((mail) => mail.subject === 'Confirm your email address');
  assert.match(verification.text ?? '', /^Hello Grace,/);
  assert.match(verification.text ?? '', /If you did not ask for this, ignore this message/);
  assert.equal(linkIn(verification, '/app/verify-email?token='), 'https://sho.rt/app/verify-email?token=v1');
  assert.ok(String(verification.html).includes('href="https://sho.rt/app/verify-email?token=v1"'));

  const resetMail = await server.next((mail) => mail.subject === 'Reset your password');
  assert.match(resetMail.text ?? '', /^Hello,\n/);
  assert.match(
    resetMail.text ?? '',
    /until 4 March 2031 at 05:06 UTC\. If you did not ask for this, ignore this message: your password stays as it is/,
  );
  assert.equal(linkIn(resetMail, '/app/reset-password?token='), 'https://sho.rt/app/reset-password?token=r1');
  assert.ok(String(resetMail.html).includes('href="https://sho.rt/app/reset-password?token=r1"'));
  assert.equal(server.messages.length, 3);
});

test('a value with a line break stays in its header: no header of its own', async (t) => {
  const server = await smtp(t);
  const { sender } = mailer(t, server.url);
  const content = invitationMail({
    workspaceName: 'Acme\r\nBcc: eve@example.com',
    inviterName: 'Eve\nX-Evil: 1',
    role: 'admin',
    url: 'https://sho.rt/app/invitation?token=t',
    expiresAt: EXPIRES,
  });
  await sender.send({ to: 'grace@example.com', ...content });
  const mail = await server.next();
  assert.equal(mail.subject, 'You are invited to Acme Bcc: eve@example.com');
  assert.equal(mail.bcc, undefined);
  assert.equal(mail.headers.has('x-evil'), false);
});

test('the credentials of SMTP_URL log in to the server', async (t) => {
  const server = await smtp(t);
  const { sender } = mailer(t, server.url.replace('smtp://', 'smtp://mailer:s%40cret@'));
  await sender.send({ to: 'grace@example.com', ...verifyEmailMail({ name: 'Grace', url: 'https://sho.rt/app/verify-email?token=v' }) });
  await server.next();
  assert.deepEqual(server.logins, [{ username: 'mailer', password: 's@cret' }]);
});

async function assertUnavailable(send: Promise<void>, withinMs: number, lines: string[]): Promise<void> {
  const started = performance.now();
  await assert.rejects(send, (err) => isAppError(err) && err.code === 'MAIL_UNAVAILABLE');
  const took = performance.now() - started;
  assert.ok(took < withinMs, `took ${took.toFixed(0)} ms`);
  assert.equal(lines.length, 1, lines.join('\n'));
  for (const secret of ['token=', 'grace@example.com', 'Hello']) assert.equal(lines[0]?.includes(secret), false, lines[0]);
}

const resetTo = (to: string) => ({
  to,
  ...resetPasswordMail({ name: 'Grace', url: 'https://sho.rt/app/reset-password?token=SECRET', expiresAt: EXPIRES }),
});

test('a port nothing listens on is MAIL_UNAVAILABLE at once, logged without the message', async (t) => {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const { sender, lines } = mailer(t, `smtp://127.0.0.1:${port}`);
  await assertUnavailable(sender.send(resetTo('grace@example.com')), 2000, lines);
});

test('a server that takes the connection and never greets is MAIL_UNAVAILABLE after the timeout', async (t) => {
  const sockets = new Set<net.Socket>();
  const silent = net.createServer((socket) => void sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    silent.close();
  });
  const { port } = silent.address() as AddressInfo;
  const { sender, lines } = mailer(t, `smtp://127.0.0.1:${port}`, { timeoutMs: 300 });
  await assertUnavailable(sender.send(resetTo('grace@example.com')), 3000, lines);
  assert.equal(sockets.size, 1, 'it did connect');
});

test('a server that refuses the recipient is MAIL_UNAVAILABLE, logged with its answer code', async (t) => {
  const refusing = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo: (_address, _session, callback) => callback(Object.assign(new Error('no such mailbox'), { responseCode: 550 })),
  });
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', () => resolve()));
  t.after(() => new Promise<void>((resolve) => refusing.close(() => resolve())));
  const { port } = refusing.server.address() as AddressInfo;
  const { sender, lines } = mailer(t, `smtp://127.0.0.1:${port}`);
  await assertUnavailable(sender.send(resetTo('grace@example.com')), 2000, lines);
  assert.equal((JSON.parse(lines[0] ?? '{}') as { responseCode?: number }).responseCode, 550);
});

test('SMTP_URL is an smtp(s) URL and a secret; MAIL_FROM defaults to an address at BASE_URL host', (t) => {
  assert.equal(mailerOf(loadConfig({}), pino({ level: 'silent' })), null, 'no SMTP_URL: no mail');
  const config = loadConfig({ SMTP_URL: 'smtps://user:hunter2@mail.example.com:465', BASE_URL: 'https://sho.rt' });
  assert.equal(config.smtpUrl, 'smtps://user:hunter2@mail.example.com:465');
  assert.equal(config.mailFrom, 'shortener <no-reply@sho.rt>');
  assert.equal(loadConfig({ PORT: '8080' }).mailFrom, 'shortener <no-reply@localhost>');
  assert.equal(loadConfig({ BASE_URL: 'http://127.0.0.1:3000' }).mailFrom, 'shortener <no-reply@[127.0.0.1]>');
  assert.equal(loadConfig({ MAIL_FROM: 'links@example.org' }).mailFrom, 'links@example.org');
  const sender = mailerOf(config, pino({ level: 'silent' }));
  t.after(() => sender?.close());
  assert.ok(sender instanceof Mailer);

  const refused = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      return err.message;
    }
    return assert.fail(`${JSON.stringify(env)} was accepted`);
  };
  const message = refused({ SMTP_URL: 'https://user:hunter2@mail.example.com' });
  assert.match(message, /SMTP_URL \(\d+ characters, not shown\): expected an smtp:\/\/ or smtps:\/\/ URL/);
  assert.equal(message.includes('hunter2'), false);
  assert.match(refused({ MAIL_FROM: 'Shortener <no-reply@sho.rt>\nBcc: eve@example.com' }), /MAIL_FROM=/);
  assert.match(refused({ MAIL_FROM: 'not an address' }), /MAIL_FROM=/);
});
