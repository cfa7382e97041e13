/**
 * One stack (vite, Chromium, fakes…) for a whole test file: `suiteStack(start)` registers the
 * beforeAll that starts it and the afterAll that closes it. The returned object is filled in by that
 * beforeAll, so read its fields inside hooks and tests, never at import time.
 */
import { afterAll, beforeAll } from 'vitest';

export function suiteStack<T extends { close(): Promise<void> }>(start: () => Promise<T>): T {
  const held = {} as T;
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
    Object.assign(held, started);
  });
  afterAll(() => started?.close());
  return held;
}
