// The web console's build: `npm run console:build` (scripts/console-build.mjs) writes console/dist, served by the
// config role at /console/. The typed client (src/client, package export playbase/client) is bundled from source.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: '/console/',
  resolve: { alias: { 'playbase/client': here('../src/client/index.ts') } },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: here('./dist'),
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    // The Cloud Code chunk (CodeMirror) is above Vite's 500 KB warning; it loads only with that page.
    chunkSizeWarningLimit: 700,
    // One file per build input: the main bundle's size is the number to watch (docs/console.md).
    rollupOptions: { output: { entryFileNames: 'assets/main-[hash].js' } },
  },
});
