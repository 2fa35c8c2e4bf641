import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The web page: a single-page app built at `npm install` into dist/web and
 * served by the hub at `/`. Everything it needs is bundled; it fetches nothing
 * from the network at run time.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
});
