/**
 * The `<llama-chat>` widget as a library build: one ES module, `llama-chat.js`, plus the engine
 * worker's chunks under assets/ (a worker is its own script). `npm run build:widget` writes
 * dist/widget/ with the files the widget loads from its own folder — models/ (the tokenizer and the
 * local ONNX models; big downloaded models are not copied), ort/, pyodide/ and local-search/ (the local
 * search's demo corpus) — and demo.html.
 * Serve that folder with `Access-Control-Allow-Origin` to embed the widget on other origins.
 */
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, type InlineConfig, type Plugin } from 'vite';
import { ortWasmFallbackNotBundled } from './src/server/static-assets.js';

const ROOT = import.meta.dirname;

/** Local model folders the widget build carries (small: the tokenizer, the test and demo models). */
const LOCAL_MODEL_DIRS = ['llama-3.1-tokenizer', 'tiny-llama', 'micro-llama'];

function copyWidgetAssets(outDir: string): Plugin {
  return {
    name: 'llama-widget-assets',
    apply: 'build',
    writeBundle() {
      const copy = (from: string, to: string) => existsSync(from) && cpSync(from, to, { recursive: true, filter: (src) => !src.includes(`${join('micro-llama', 'train')}`) });
      copy(join(ROOT, 'public/ort'), join(outDir, 'ort'));
      copy(join(ROOT, 'public/pyodide'), join(outDir, 'pyodide'));
      copy(join(ROOT, 'public/local-search'), join(outDir, 'local-search'));
      for (const dir of LOCAL_MODEL_DIRS) copy(join(ROOT, 'models', dir), join(outDir, 'models', dir));
      copy(join(ROOT, 'src/widget/demo.html'), join(outDir, 'demo.html'));
    },
  };
}

export interface WidgetBuildOptions {
  /** Absolute output folder. Default dist/widget. */
  outDir?: string;
  /** Copy models/ort/pyodide/demo next to the module. Default true (tests serve them from the tree). */
  copyAssets?: boolean;
  /** The module built as llama-chat.js. Default src/widget/index.ts (a test build passes its own entry). */
  entry?: string;
}

export function widgetBuildConfig({ outDir = join(ROOT, 'dist/widget'), copyAssets = true, entry = join(ROOT, 'src/widget/index.ts') }: WidgetBuildOptions = {}): InlineConfig {
  return {
    root: ROOT,
    configFile: false,
    publicDir: false,
    base: './',
    logLevel: 'warn',
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    worker: { format: 'es', plugins: () => [ortWasmFallbackNotBundled()] },
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      reportCompressedSize: false,
      chunkSizeWarningLimit: 8000,
      lib: { entry, formats: ['es'], fileName: () => 'llama-chat.js' },
      rolldownOptions: { checks: { pluginTimings: false } },
    },
    plugins: copyAssets ? [copyWidgetAssets(outDir)] : [],
  };
}

export default defineConfig(widgetBuildConfig());
