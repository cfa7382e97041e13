import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './tests/slow-first-sequencer.js';

/**
 * Three tiers, all run by `npm test` (`npm run test:<tier>` runs one): `unit` (Node: format, engine,
 * agent, tools, bench), `browser` (headless Chromium: the pages, the worker, WASM), and
 * `webgpu-swiftshader` (*.webgpu.browser.test.ts: WebGPU on the software adapter, correct but slow).
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
          exclude: ['**/*.browser.test.ts', '**/node_modules/**'],
        },
      },
      { extends: true, test: { name: 'browser', include: ['tests/browser/**/*.browser.test.ts'], exclude: ['**/*.webgpu.browser.test.ts'] } },
      { extends: true, test: { name: 'webgpu-swiftshader', include: ['tests/browser/**/*.webgpu.browser.test.ts'] } },
    ],
  },
});
