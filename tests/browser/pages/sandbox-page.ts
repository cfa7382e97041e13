// Test page: a page with secrets (a cookie, localStorage) hosting the Python sandbox (window.sandbox).
import { PyodideSandbox } from '../../../src/sandbox/pyodide-sandbox';

declare global {
  interface Window {
    sandbox: PyodideSandbox;
    PyodideSandbox: typeof PyodideSandbox;
    /** Every message event the page's window received (the host must not depend on any). */
    windowMessages: unknown[];
    /** Runs `task` while a 50 ms interval ticks; returns its value and the largest gap between ticks. */
    withTicks<T>(task: () => Promise<T>): Promise<{ value: T; maxGapMs: number; ticks: number }>;
    ready: boolean;
  }
}

document.cookie = 'secret=1';
localStorage.setItem('secret', '1');
window.windowMessages = [];
addEventListener('message', (event) => window.windowMessages.push(event.data));

window.withTicks = async (task) => {
  let last = performance.now();
  let maxGapMs = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
    ticks++;
  }, 50);
  try {
    const value = await task();
    maxGapMs = Math.max(maxGapMs, performance.now() - last);
    return { value, maxGapMs, ticks };
  } finally {
    clearInterval(timer);
  }
};

window.PyodideSandbox = PyodideSandbox;
window.sandbox = new PyodideSandbox({ timeoutMs: 3000 });
window.ready = true;
