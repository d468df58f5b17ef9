// User-Agents of the tests' clicks, in a module of their own: tests that only click need no browser driver.

/** A desktop browser's User-Agent: its clicks count as people's, not bots' (isbot knows HeadlessChrome). */
export const DESKTOP_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
