import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'worker/**/*.test.ts', 'scripts/**/*.test.ts', 'tests/**/*.test.ts', 'bench/**/*.test.ts'],
    globalSetup: ['tests/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Browser tests share one Chromium and one vite server per file; 2 cores: keep files sequential-ish.
    maxWorkers: 2,
  },
});
