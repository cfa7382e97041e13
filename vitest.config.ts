import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './tests/slow-first-sequencer.js';
import { BUILD_FILES, LLAMA_SERVER_FILES, MODEL_FILES, PROPERTY_FILES, TRAINING_FILES } from './tests/tiers.js';

/**
 * Eight tiers, all run by `npm test` (`npm run test:<tier>` runs one), named for what they cost:
 * `unit` (Node, in process, logic only: no real model, no spawned process; builds nothing), `model`
 * (a real tiny or micro model, the tokenizer build or Pyodide in Node, or a spawned serve/CLI process),
 * `llama-server` (a real llama-server, built once per machine by this tier's setup), `training` (the
 * micro model's corpus checked whole), `property` (generated-input properties), `build` (production builds of the page, the widget and the
 * package read back, the package installed into its examples), `browser` (headless
 * Chromium: the pages, the worker, WASM), and `webgpu-swiftshader` (*.webgpu.browser.test.ts: WebGPU on
 * the software adapter, correct but slow). tests/tiers.ts lists the files of the middle six.
 */
export default defineConfig({
  test: {
    globalSetup: ['tests/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 300_000,
    // Each browser test file starts its own vite server and Chromium: two at a time on 2 cores.
    maxWorkers: 2,
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'worker/**/*.test.ts', 'scripts/**/*.test.ts', 'tests/**/*.test.ts', 'bench/**/*.test.ts'],
          exclude: ['**/*.browser.test.ts', '**/node_modules/**', ...MODEL_FILES, ...LLAMA_SERVER_FILES, ...TRAINING_FILES, ...PROPERTY_FILES, ...BUILD_FILES],
        },
      },
      { extends: true, test: { name: 'model', include: [...MODEL_FILES] } },
      // Its setup runs after the root's (assets) and only when one of its files runs.
      { extends: true, test: { name: 'llama-server', include: [...LLAMA_SERVER_FILES], globalSetup: ['tests/llama-server-setup.ts'] } },
      { extends: true, test: { name: 'training', include: [...TRAINING_FILES] } },
      { extends: true, test: { name: 'property', include: [...PROPERTY_FILES] } },
      { extends: true, test: { name: 'build', include: [...BUILD_FILES] } },
      { extends: true, test: { name: 'browser', include: ['tests/browser/**/*.browser.test.ts'], exclude: ['**/*.webgpu.browser.test.ts', ...LLAMA_SERVER_FILES] } },
      { extends: true, test: { name: 'webgpu-swiftshader', include: ['tests/browser/**/*.webgpu.browser.test.ts'] } },
    ],
  },
});
