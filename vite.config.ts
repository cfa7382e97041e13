import { defineConfig } from 'vite';
import { modelsInPreviewPlugin, ortWasmFallbackNotBundled, pyodideCorsPlugin } from './src/server/static-assets.js';
import { crossOriginIsolationPlugin } from './src/server/cross-origin-isolation.js';
import { engineProxy } from './src/server/engine-proxy.js';
import { malformedTargetGuard } from './src/server/malformed-target-guard.js';
import { toolProxy } from './src/server/tool-proxy.js';

/**
 * The chat page. Ports are strict: a taken port is an error, never a silent move to the next one,
 * because the README and the CLI's default tool proxy (http://127.0.0.1:5173/api/tools/) name them.
 * The build writes dist/page/ (the widget's build writes dist/widget/: neither empties the other).
 */
export default defineConfig({
  worker: { format: 'es', plugins: () => [ortWasmFallbackNotBundled()] },
  server: { port: 5173, strictPort: true },
  preview: { port: 4173, strictPort: true },
  // Pre-bundled at start: reached only through dynamic imports (the highlighter, the remote engine's stream parser, the
  // worker's grammar engine), they would be found on first use, and the dev server's re-optimization then answers an import
  // in flight with 504 "Outdated Optimize Dep" on a cold cache. XGrammar's package is a UMD bundle labelled ESM: pre-bundling
  // wraps it as CommonJS (its exports on `default`), as the production build does.
  optimizeDeps: { include: ['highlight.js/lib/common', 'eventsource-parser', '@mlc-ai/web-xgrammar'] },
  build: { outDir: 'dist/page', chunkSizeWarningLimit: 8000 },
  plugins: [malformedTargetGuard(), crossOriginIsolationPlugin(), toolProxy(), engineProxy(), pyodideCorsPlugin(), modelsInPreviewPlugin(import.meta.dirname)],
});
