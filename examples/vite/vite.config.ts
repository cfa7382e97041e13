import { defineConfig } from 'vite';

export default defineConfig({
  // The package starts its engine worker with new Worker(new URL(…, import.meta.url)): pre-bundling
  // would move that code away from the worker file beside it, so the dev server serves the package as is.
  optimizeDeps: { exclude: ['llama-agent-web'] },
  worker: { format: 'es' },
});
