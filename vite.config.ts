import { defineConfig } from 'vite';
import { modelsInPreviewPlugin, ortWasmFallbackNotBundled, pyodideCorsPlugin } from './src/server/static-assets.js';
import { crossOriginIsolationPlugin } from './src/server/cross-origin-isolation.js';
import { engineProxy } from './src/server/engine-proxy.js';
import { toolProxy } from './src/server/tool-proxy.js';

export default defineConfig({
  worker: { format: 'es', plugins: () => [ortWasmFallbackNotBundled()] },
  server: { port: 5173 },
  build: { chunkSizeWarningLimit: 8000 },
  plugins: [crossOriginIsolationPlugin(), toolProxy(), engineProxy(), pyodideCorsPlugin(), modelsInPreviewPlugin(import.meta.dirname)],
});
