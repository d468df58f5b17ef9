// Run by `npm ci` (the prepare script): makes the embedded engine's template once per PGlite
// version (src/db/embedded.ts), so that a fresh checkout's first `npm start` copies a database
// instead of running initdb. A failure here costs that first start 2.6 s, not the install: it is said
// and the install goes on.

import { loadConfig } from '../src/config/config.ts';
import { DEFAULT_TEMPLATE_DIR, embeddedTemplate } from '../src/db/embedded.ts';

try {
  const started = performance.now();
  const template = await embeddedTemplate(loadConfig().embeddedTemplateDir ?? DEFAULT_TEMPLATE_DIR);
  process.stdout.write(`embedded engine template: ${template} (${Math.round(performance.now() - started)} ms)\n`);
} catch (err) {
  console.error(`the embedded engine's template was not made, so the first start will run initdb: ${(err as Error).message}`);
}
