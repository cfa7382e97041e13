/**
 * The npm package's library build (`npm run build:lib`, run by `npm pack`): ES modules under
 * dist/lib/, one per entry point of package.json's `exports` (src/package/*), and the assets command
 * (scripts/package/assets-cli.ts). Dependencies stay imports (the consumer installs them); the engine
 * worker is bundled whole under dist/lib/assets/ (a worker is its own script) and started with
 * `new Worker(new URL(…, import.meta.url), { type: 'module' })`, which a consumer's bundler follows.
 * The tokenizer (compact) and the micro model's committed artifact are copied under dist/lib/files/ for
 * the assets command. Type declarations come from `tsc -p tsconfig.lib.json`.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import { ortWasmFallbackNotBundled } from './src/server/static-assets.js';

const ROOT = import.meta.dirname;
const OUT = join(ROOT, 'dist/lib');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; peerDependencies?: Record<string, string> };
const external = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies ?? {})];
const isExternal = (id: string) => id.startsWith('node:') || builtinModules.includes(id) || external.some((dep) => id === dep || id.startsWith(`${dep}/`));

/** The files the assets command copies or builds from (see scripts/package/assets-cli.ts). */
function packageFiles(): Plugin {
  return {
    name: 'llama-agent-package-files',
    apply: 'build',
    writeBundle() {
      const files = join(OUT, 'files');
      mkdirSync(join(files, 'llama-3.1-tokenizer'), { recursive: true });
      const tokenizer = readFileSync(join(ROOT, 'models/llama-3.1-tokenizer/tokenizer.json'), 'utf8');
      writeFileSync(join(files, 'llama-3.1-tokenizer/tokenizer.json'), JSON.stringify(JSON.parse(tokenizer)));
      for (const name of ['manifest.json', 'weights.bin']) cpSync(join(ROOT, 'models/micro-llama', name), join(files, 'micro-llama', name));
    },
  };
}

/**
 * The engine worker's URL as a consumer's bundler recognizes it: vite writes the emitted worker as
 * `new URL(/* @vite-ignore *\/ new URL("assets/…", import.meta.url).href, "" + import.meta.url)`, which
 * no bundler follows; `new URL("./assets/…", import.meta.url)` inside `new Worker(…)` is what Vite (and
 * webpack 5, by its documentation) turn into a worker of their own build.
 */
function followableWorkerUrl(): Plugin {
  const emitted = /new URL\(\s*\/\* @vite-ignore \*\/\s*new URL\("(assets\/[^"]+\.js)", import\.meta\.url\)\.href,\s*"" \+ import\.meta\.url\s*\)/g;
  return {
    name: 'llama-agent-followable-worker-url',
    apply: 'build',
    renderChunk(code) {
      return code.match(emitted) ? { code: code.replace(emitted, 'new URL("./$1", import.meta.url)'), map: null } : null;
    },
  };
}

/**
 * onnxruntime-web's own fallbacks, `new URL("ort-….wasm", import.meta.url)` and its bundle's URL for its
 * workers, are never taken (the engine sets `wasmPaths` and `wasmBinary`, worker/backends/onnx-backend.ts),
 * and the files are not in the package: marked so that a consumer's bundler leaves them as runtime URLs
 * (webpack 5 otherwise fails on the missing files; Vite only warns).
 */
function ortFallbacksLeftToRuntime(): Plugin {
  const fallback = /new (\w+)\((["'])(ort[\w.-]*\.(?:wasm|mjs))\2,\s*import\.meta\.url\)/g;
  return {
    name: 'llama-agent-ort-fallbacks-left-to-runtime',
    apply: 'build',
    renderChunk(code) {
      const marked = code.replace(fallback, 'new $1(/* webpackIgnore: true */ /* @vite-ignore */ "$3", import.meta.url)');
      return marked === code ? null : { code: marked, map: null };
    },
  };
}

export default defineConfig({
  root: ROOT,
  base: './',
  publicDir: false,
  logLevel: 'warn',
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  worker: { format: 'es', plugins: () => [ortWasmFallbackNotBundled(), ortFallbacksLeftToRuntime()] },
  build: {
    outDir: OUT,
    emptyOutDir: true,
    target: 'es2022',
    minify: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 8000,
    lib: {
      entry: {
        engine: join(ROOT, 'src/package/engine.ts'),
        agent: join(ROOT, 'src/package/agent.ts'),
        format: join(ROOT, 'src/package/format.ts'),
        openai: join(ROOT, 'src/package/openai.ts'),
        'ai-sdk': join(ROOT, 'src/package/ai-sdk.ts'),
        node: join(ROOT, 'src/package/node.ts'),
        widget: join(ROOT, 'src/package/widget.ts'),
        'assets-cli': join(ROOT, 'scripts/package/assets-cli.ts'),
      },
      formats: ['es'],
    },
    rolldownOptions: { external: isExternal, checks: { pluginTimings: false } },
  },
  plugins: [packageFiles(), followableWorkerUrl()],
});
