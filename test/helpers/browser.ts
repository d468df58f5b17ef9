// A real browser for the dashboard's tests: Debian's Chromium driven by playwright-core, headless,
// with its background networking off (the machine has no network, and the tests want none). Each
// page records console errors, uncaught errors and Content-Security-Policy violations, runs
// axe-core on demand, and saves screenshots under test-results/dashboard/ for people to look at.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { DESKTOP_UA } from './agents.ts';

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = new URL('../../test-results/dashboard/', import.meta.url).pathname;
export { DESKTOP_UA };

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does), or set CHROMIUM`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
}

export interface WatchedPage {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Console errors (but the browser's own line for an expected 4xx answer), uncaught errors, CSP violations. */
  readonly problems: string[];
  /**
   * Every answer of 400 or more the page received (`GET /auth/session 401`): each is a console error in the
   * browser. Normal use has none; a test of a refusal expects its own.
   */
  readonly failedLoads: string[];
}

export async function watchedPage(
  browser: Browser,
  viewport: { width: number; height: number },
  userAgent = DESKTOP_UA,
): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport,
    userAgent,
    acceptDownloads: true,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    // Chromium logs every 4xx answer to a fetch; the API's coded errors are expected ones.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  const failedLoads: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400)
      failedLoads.push(`${response.request().method()} ${new URL(response.url()).pathname} ${response.status()}`);
  });
  // Run in the page (as text: these files are type-checked without the DOM's types).
  await page.addInitScript(
    "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI))",
  );
  return { page, context, problems, failedLoads };
}

let axeSource: string | undefined;

/** axe-core's serious and critical violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol, which the page's CSP does not govern (an injected <script> would be refused);
  // once a document (a third of a second of a core each time on a slow machine), not at every look at the same page.
  if (await page.evaluate<boolean>("typeof axe === 'undefined'")) await page.evaluate(axeSource);
  const violations = await page.evaluate<AxeViolation[]>('axe.run(document).then((result) => result.violations)');
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** The whole page, or what the viewport shows (a dialog's backdrop covers the viewport alone). */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage });
}

/** How far the page scrolls sideways (0 on a page that fits its viewport). */
export async function sidewaysScroll(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
}

/** What a script in the page evaluates `expression` to. */
export async function inPage<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate<T>(expression);
}

/** Presses a form's `button` and waits for the status it announces (`status`, part of the live region's text). */
export async function saved(page: Page, button: string, status: string): Promise<void> {
  await page.getByRole('button', { name: button }).click();
  await page.getByRole('status').filter({ hasText: status }).waitFor();
}

/** Every page checked the same way: axe-core finds nothing serious, nothing scrolls sideways, and a screenshot. */
export async function look(page: Page, name: string): Promise<void> {
  await page.waitForLoadState('networkidle');
  assert.deepEqual(await seriousViolations(page), [], `${name}: no serious or critical axe-core violation`);
  assert.equal(await sidewaysScroll(page), 0, `${name}: nothing scrolls sideways`);
  await screenshot(page, name);
}

/** On a phone the header's navigation and account sit behind its Menu button: opens it where it is shown and closed. */
export async function unfoldMenu(page: Page): Promise<void> {
  const menu = page.getByRole('button', { name: 'Menu', exact: true });
  if ((await menu.isVisible()) && (await menu.getAttribute('aria-expanded')) === 'false') await menu.click();
}

/**
 * Signs `page` in with an API key the way a person does: the sign-in page (reachable while the first admin is still
 * to be set up, which is where a database holding keys but no person opens), its folded "Sign in with an API key"
 * form, then the page `path` (the sign-in page's `next`), which it waits for.
 */
export async function signInWithKey(page: Page, base: string, secret: string, path = '/app/links'): Promise<void> {
  await page.goto(`${base}/app/sign-in?${new URLSearchParams({ next: path }).toString()}`);
  await page.locator('summary', { hasText: 'Sign in with an API key' }).click();
  await page.getByLabel('API key').fill(secret);
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  await page.waitForURL((url) => url.origin === base && url.pathname + url.search === path);
  await page.locator('main h1').first().waitFor();
}

/**
 * A landing page of the test's own on 127.0.0.2, another host than the service's, so that following
 * a short link to it is a real redirect: its URL (with `?from=<label>`), and how to close it.
 */
export async function startLandingPage(label: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Landing page</title><h1>Landed</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  const url = `http://127.0.0.2:${(server.address() as AddressInfo).port}/landing?from=${label}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
