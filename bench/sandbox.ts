/**
 * Section `sandbox`: the code interpreter in headless Chromium (the real PyodideSandbox: iframe,
 * data: worker, Pyodide from public/pyodide). Cold start, warm round trip of `print(1)`, and the
 * first call's latency with and without pre-warming, each cold case in a fresh browser context
 * (empty HTTP cache), prewarmed and cold rounds interleaved; then the figures the sandbox tests leave
 * to the bench: how late a 3 s `while True` is killed, the page's largest pause meanwhile (its 50 ms
 * timer), how long an abort takes to kill a run, and 10 MB of stdout.
 */
import type { Browser } from 'playwright-core';
import { launchBrowser, startVite } from '../tests/browser/harness';
import { interleave, median, round } from './measure';
import type { BenchSection } from './section';

const ROUNDS = 3;


declare global {
  interface Window {
    PyodideSandbox: typeof import('../src/sandbox/pyodide-sandbox').PyodideSandbox;
    withTicks<T>(task: () => Promise<T>): Promise<{ value: T; maxGapMs: number; ticks: number }>;
  }
}

export const sandboxSection: BenchSection = {
  name: 'sandbox',
  summary: 'code interpreter in Chromium: cold start, warm print(1), first call with and without pre-warming',
  async run() {
    const vite = await startVite();
    const browser = await launchBrowser();
    const url = `${vite.url}/tests/browser/pages/sandbox.html`;
    try {
      const cold: number[] = [];
      const warmTrips: number[] = [];
      const samples = await interleave(ROUNDS, {
        firstCallPrewarmed: () =>
          inFreshPage(browser, url, async () => {
            const sandbox = new window.PyodideSandbox();
            const t0 = performance.now();
            await sandbox.warm();
            const coldStart = performance.now() - t0;
            const t1 = performance.now();
            const first = await sandbox.run('print(1)');
            const firstCall = performance.now() - t1;
            if (first.stdout !== '1\n') throw new Error(`print(1) gave ${JSON.stringify(first)}`);
            const trips: number[] = [];
            for (let i = 0; i < 20; i++) {
              const t = performance.now();
              await sandbox.run('print(1)');
              trips.push(performance.now() - t);
            }
            sandbox.dispose();
            return { firstCall, coldStart, trips };
          }).then((r) => {
            cold.push(r.coldStart);
            warmTrips.push(...r.trips);
            return r.firstCall;
          }),
        firstCallCold: () =>
          inFreshPage(browser, url, async () => {
            const sandbox = new window.PyodideSandbox();
            const t0 = performance.now();
            const first = await sandbox.run('print(1)');
            const firstCall = performance.now() - t0;
            if (first.stdout !== '1\n') throw new Error(`print(1) gave ${JSON.stringify(first)}`);
            sandbox.dispose();
            return firstCall;
          }),
      });
      const prewarmed = median(samples.firstCallPrewarmed);
      const coldCall = median(samples.firstCallCold);
      const kill = await inFreshPage(browser, url, async () => {
        const sandbox = new window.PyodideSandbox({ timeoutMs: 3000 });
        await sandbox.warm();
        const loop = await window.withTicks(() => sandbox.run('while True:\n    pass'));
        if (!loop.value.stateLost) throw new Error('the infinite loop was not killed');
        await sandbox.warm(); // the killed interpreter's successor
        const controller = new AbortController();
        const started = performance.now();
        const pending = sandbox.run('while True:\n    pass', { signal: controller.signal, timeoutMs: 60_000 });
        setTimeout(() => controller.abort(), 300);
        const aborted = await pending;
        const abortKillMs = performance.now() - started - 300;
        await sandbox.warm();
        const big = await sandbox.run('for i in range(100_000):\n    print("x" * 99)', { timeoutMs: 20_000 });
        sandbox.dispose();
        return { loopKilledAfterMs: loop.value.durationMs, pageMaxGapMs: loop.maxGapMs, abortKillMs, abortedLost: aborted.stateLost, tenMbStdoutMs: big.durationMs };
      });
      if (!kill.abortedLost) throw new Error('the aborted run was not killed');
      return {
        coldStartMs: round(median(cold)),
        warmRoundTripMs: round(median(warmTrips)),
        firstCallPrewarmedMs: round(prewarmed),
        firstCallColdMs: round(coldCall),
        firstCallRatio: round(coldCall / prewarmed),
        loopTimeoutMs: 3000,
        loopKilledAfterMs: round(kill.loopKilledAfterMs),
        loopPageMaxGapMs: round(kill.pageMaxGapMs),
        abortKillMs: round(kill.abortKillMs),
        tenMbStdoutMs: round(kill.tenMbStdoutMs),
        rounds: ROUNDS,
      };
    } finally {
      await browser.close();
      await vite.server.close();
    }
  },
};

/** Runs `task` in a page of a new browser context (nothing cached from earlier rounds). */
async function inFreshPage<T>(browser: Browser, url: string, task: () => Promise<T>): Promise<T> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
    return await page.evaluate(task);
  } finally {
    await context.close();
  }
}
