import { fileURLToPath } from 'node:url';

export default {
  mode: 'production',
  entry: './src/main.js',
  // index.html loads dist/main.js as a module; webpack finds the engine worker the package starts with
  // new Worker(new URL(…, import.meta.url), { type: 'module' }) and writes it as a chunk of this build.
  output: { path: fileURLToPath(new URL('./dist/', import.meta.url)), filename: 'main.js', module: true, clean: true },
  experiments: { outputModule: true, topLevelAwait: true },
  // The package's runtimes (WebLLM, onnxruntime-web, XGrammar) are large by nature; they load on first need.
  performance: { hints: false },
  target: 'web',
};
