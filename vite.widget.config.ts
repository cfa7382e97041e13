/**
 * The `<llama-chat>` widget as a library build: the entry module `llama-chat.js` (the UI), the chunks
 * it loads when first needed (the tokenizer, local math, the Python sandbox, the highlighter) and the
 * engine worker's chunks under assets/ (a worker is its own script; its ONNX and WebLLM runtimes load
 * with the first model that needs them). `npm run build:widget` writes dist/widget/ with the files the
 * widget loads from its own folder — models/llama-3.1-tokenizer/, ort/, pyodide/ and local-search/ (the
 * local search's demo corpus) — and demo.html. The local models (tiny and micro, ONNX and GGUF, about
 * 390 MB) are an optional demo pack: `npm run build:widget:demo` (WIDGET_DEMO_MODELS=1) copies them too.
 * Serve that folder with `Access-Control-Allow-Origin` to embed the widget on other origins.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, type InlineConfig, type Plugin } from 'vite';
import { ortWasmFallbackNotBundled } from './src/server/static-assets.js';

const ROOT = import.meta.dirname;

/** What every widget build carries under models/: the tokenizer (every model's page side needs it), as compact JSON (a third smaller). */
const TOKENIZER_FILE = 'llama-3.1-tokenizer/tokenizer.json';
/** The optional demo pack: the local models (the tiny test model and the micro demo model). */
export const DEMO_MODEL_DIRS = ['tiny-llama', 'micro-llama'];

function copyWidgetAssets(outDir: string, demoModels: boolean): Plugin {
  return {
    name: 'llama-widget-assets',
    apply: 'build',
    writeBundle() {
      const copy = (from: string, to: string) => existsSync(from) && cpSync(from, to, { recursive: true, filter: (src) => !src.includes(`${join('micro-llama', 'train')}`) });
      copy(join(ROOT, 'public/ort'), join(outDir, 'ort'));
      copy(join(ROOT, 'public/pyodide'), join(outDir, 'pyodide'));
      copy(join(ROOT, 'public/local-search'), join(outDir, 'local-search'));
      const tokenizer = join(ROOT, 'models', TOKENIZER_FILE);
      if (existsSync(tokenizer)) {
        mkdirSync(join(outDir, 'models', TOKENIZER_FILE, '..'), { recursive: true });
        writeFileSync(join(outDir, 'models', TOKENIZER_FILE), JSON.stringify(JSON.parse(readFileSync(tokenizer, 'utf8'))));
      }
      for (const dir of demoModels ? DEMO_MODEL_DIRS : []) copy(join(ROOT, 'models', dir), join(outDir, 'models', dir));
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
  /** Copy the demo pack (DEMO_MODEL_DIRS) too. Default: WIDGET_DEMO_MODELS=1 in the environment. */
  demoModels?: boolean;
}

export function widgetBuildConfig({ outDir = join(ROOT, 'dist/widget'), copyAssets = true, entry = join(ROOT, 'src/widget/index.ts'), demoModels = process.env.WIDGET_DEMO_MODELS === '1' }: WidgetBuildOptions = {}): InlineConfig {
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
    plugins: copyAssets ? [copyWidgetAssets(outDir, demoModels)] : [],
  };
}

export default defineConfig(widgetBuildConfig());
