import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'worker/**/*.test.ts', 'scripts/**/*.test.ts', 'tests/**/*.test.ts', 'bench/**/*.test.ts'],
    globalSetup: ['tests/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 300_000,
    // Each browser test file starts its own vite server and Chromium: two at a time on 2 cores.
    maxWorkers: 2,
  },
});
