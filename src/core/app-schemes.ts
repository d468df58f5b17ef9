// Which schemes an app URL of a link's deepLink option may use (link-options.ts): an app's own
// custom scheme, by its shape, but no well-known scheme of the browser, the system, calls or
// messages. What is refused and why: docs/api.md#link-options.

/** An app's own scheme, as apps register them: 2 to 64 characters (`myapp`, `fb`, `com.example.app`). */
const APP_SCHEME = /^[a-z][a-z0-9+.-]{1,63}$/;
/**
 * Well-known schemes that are no app of the link's: they run or read something in the browser,
 * install or configure something, run an automation, place a call or write a message, or are the
 * one the service builds itself (intent: on Android). docs/api.md#link-options.
 */
const SCHEMES_REFUSED = new Set([
  // The browser's own, and what it runs or reads.
  'javascript',
  'data',
  'vbscript',
  'file',
  'about',
  'blob',
  'filesystem',
  'view-source',
  'content',
  'resource',
  'jar',
  'ftp',
  'ws',
  'wss',
  // Android: built here from an app URL (app-page.ts), never taken as one; its market.
  'intent',
  'android-app',
  // iOS: installs an app from a manifest, runs a shortcut, opens settings.
  'itms-services',
  'shortcuts',
  'workflow',
  'prefs',
  'app-prefs',
  'app-settings',
  // Calls, messages and mail: a tap places them.
  'tel',
  'telprompt',
  'callto',
  'sip',
  'sips',
  'sms',
  'smsto',
  'mms',
  'mmsto',
  'imessage',
  'facetime',
  'facetime-audio',
  'facetime-prompt',
  'mailto',
  // Windows: handlers that ran code from a link (ms-msdt, search-ms).
  'search-ms',
  'search',
  'ms-msdt',
  // File shares and remote shells.
  'smb',
  'nfs',
  'afp',
  'ssh',
  'telnet',
]);
/** Families refused by their prefix: Apple's system apps and installers, Windows' handlers, browsers' internals. */
const SCHEME_PREFIXES_REFUSED = ['itms', 'x-apple', 'ms-', 'chrome', 'edge', 'moz-', 'opera', 'brave'];

/** Why an app URL's scheme is refused, or undefined: it is an app's own. */
export function appSchemeProblem(scheme: string): string | undefined {
  if (SCHEMES_REFUSED.has(scheme) || SCHEME_PREFIXES_REFUSED.some((prefix) => scheme.startsWith(prefix)))
    return `may not use the ${scheme}: scheme (an app URL opens the app of the link, not the browser, a call, a message or the system).`;
  if (!APP_SCHEME.test(scheme)) return 'has no app scheme: 2 to 64 characters of a-z, 0-9, "+", "." and "-", starting with a letter.';
  return undefined;
}
