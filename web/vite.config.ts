import { defineConfig } from 'vite';

// Built by `npm run build:app` into dist/app/, which the service serves under /app/ with a strict CSP:
// no inline script or style, hashed assets that may be cached for good.
export default defineConfig({
  root: import.meta.dirname,
  base: '/app/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../dist/app',
    emptyOutDir: true,
    assetsDir: 'assets',
    modulePreload: { polyfill: false },
    // Inlined assets would become data: URLs; keep every file a file so the CSP stays 'self'.
    assetsInlineLimit: 0,
  },
});
