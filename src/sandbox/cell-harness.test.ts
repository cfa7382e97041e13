/**
 * The cell harness's Python logic with Pyodide in Node, the way the worker drives it: check, open a
 * fresh cell, run, check the cell and the harness again. The browser battery
 * (tests/browser/sandbox.browser.test.ts) runs the same attacks end to end.
 */
import { loadPyodide } from 'pyodide';
import { beforeAll, describe, expect, it } from 'vitest';
import { openCellHarness } from './cell-harness';
import { PYTHON_CELL } from './python-cell';
import { PYTHON_INTEGRITY } from './python-integrity';
import { PYTHON_RUNNER } from './python-runner';

interface Outcome {
  result: string | null;
  error: string | null;
  missing: string | null;
  /** What the check after the run found changed, or null. */
  changed: string | null;
}

async function session() {
  const pyodide = await loadPyodide();
  const harness = openCellHarness(pyodide, { runner: PYTHON_RUNNER, cell: PYTHON_CELL, integrity: PYTHON_INTEGRITY });
  /** Runs a cell; the check before it must find nothing (the worker would not run it). */
  const run = async (code: string): Promise<Outcome> => {
    const before = harness.changed();
    if (before !== null) throw new Error(`changed before the run: ${before}`);
    const cell = harness.open();
    const outcome = await cell.run(code, 20_000);
    const [result, error, missing] = outcome.toJs({ dict_converter: Object.fromEntries }) as [{ text: string } | undefined, { text: string } | undefined, string | undefined];
    outcome.destroy();
    const changed = cell.changed() ?? harness.changed();
    cell.close();
    return { result: result?.text ?? null, error: error?.text ?? null, missing: missing ?? null, changed };
  };
  /** Runs `code` in `__main__` outside the harness (to put back what a test changed). */
  const undo = (code: string) => pyodide.runPython(code);
  return { run, undo, harness };
}

describe('the cell harness', () => {
  let s: Awaited<ReturnType<typeof session>>;
  beforeAll(async () => {
    s = await session();
  });

  it('runs cells like a notebook: state, the last expression, a trailing semicolon, top-level await, dedent', async () => {
    expect(await s.run('x = 41')).toEqual({ result: null, error: null, missing: null, changed: null });
    expect((await s.run('x + 1')).result).toBe('42');
    expect((await s.run('x + 1;')).result).toBeNull();
    expect((await s.run('(x, 1) ;  # quiet')).result).toBeNull();
    expect((await s.run('x + 1  # not quiet ;')).result).toBe('42');
    expect((await s.run('y = 1; y + 1')).result).toBe('2');
    expect((await s.run('import asyncio\nawait asyncio.sleep(0.001)\nawait asyncio.sleep(0, x)')).result).toBe('41');
    expect((await s.run('    a = 2\n\n    a * x')).result).toBe('82');
    expect((await s.run('"é" + "ü"')).result).toBe("'éü'");
  });

  it('reports tracebacks from the model code, syntax errors and missing modules', async () => {
    const r = await s.run('def f():\n    return 1 / 0\nf()');
    expect(r.error).toMatch(/^Traceback \(most recent call last\):\n {2}File "<exec>", line 3, in <module>\n {2}File "<exec>", line 2, in f\nZeroDivisionError: division by zero\n$/);
    expect((await s.run('def (')).error).toMatch(/^ {2}File "<exec>", line 1\n.*SyntaxError: invalid syntax\n$/s);
    expect(await s.run('import numpy')).toMatchObject({ missing: 'numpy', error: expect.stringMatching(/ModuleNotFoundError: No module named 'numpy'/) });
    expect((await s.run('import sys\nsys.exit(3)')).error).toMatch(/SystemExit: 3\n$/);
  });

  it('ignores source lines planted for <exec> in linecache', async () => {
    const plant = 'import linecache\nlinecache.cache["<exec>"] = (9, None, ["forged\\n"] * 9, "<exec>")\nlinecache._interactive_cache[("<exec>", "<module>", 1)] = (9, None, ["forged\\n"] * 9, "<exec>")';
    expect((await s.run(plant)).changed).toBeNull();
    expect((await s.run('1 / 0')).error).not.toMatch(/forged/);
  });

  it('sees no change after ordinary code: warnings, logging, dataclasses, typing, asyncio, tracebacks, redirected output, the caches Python fills', async () => {
    const ordinary = [
      'import warnings, logging, random, re, json, copy, dataclasses, typing, decimal, datetime, fractions, collections\nwith warnings.catch_warnings():\n    warnings.simplefilter("ignore")\nlogging.basicConfig(level=logging.INFO)\nlogging.getLogger("x").info("hi")\nrandom.seed(1)\nre.compile("a+").findall("aaa")',
      '@dataclasses.dataclass\nclass P:\n    x: int\ncopy.deepcopy(P(1)), typing.get_type_hints(P), json.dumps({"a": [1]})',
      'import asyncio\nasync def g(i):\n    await asyncio.sleep(0.001)\n    return i\nawait asyncio.gather(*(g(i) for i in range(5)))',
      'async with asyncio.timeout(1):\n    await asyncio.sleep(0)\nq = asyncio.Queue()\nawait q.put(1)\nawait asyncio.wait_for(q.get(), 1)',
      'import traceback, contextlib, io\ntry:\n    {}["k"]\nexcept KeyError:\n    text = traceback.format_exc()\nwith contextlib.redirect_stdout(io.StringIO()) as out:\n    print("hidden")\nout.getvalue()',
      'raise ExceptionGroup("g", [ValueError(1), KeyError(2)])',
      'undefined_name',
      'import inspect, ast\ninspect.getsource(ast.parse) and ast.dump(ast.parse("1 + 1"))',
      'class Meta(type):\n    pass\nclass C(metaclass=Meta):\n    pass\nimport functools\n@functools.lru_cache\ndef h(n):\n    return n\nh(1), C()',
      // Python's own caches: a warning registry (a never-awaited coroutine, an invalid escape when
      // compiling the cell), annotations, copy's __slotnames__.
      'async def g():\n    return 7\ng()',
      're.findall("\\d", "a1")',
      'import asyncio, inspect, traceback\ntyping.get_type_hints(asyncio.Handle), inspect.get_annotations(asyncio.events), copy.copy(traceback.TracebackException(ValueError, ValueError(1), None))',
    ];
    for (const code of ordinary) expect(await s.run(code)).toMatchObject({ changed: null });
  });

  it("finds a run that changes its own harness, and the next cell's harness is a fresh one", async () => {
    const rename = 'import gc\nasync def fake(*args, **kwargs):\n    return 1337\nfor o in gc.get_objects():\n    if type(o) is dict and "_compile" in o and callable(o.get("run")):\n        o["repr"] = fake';
    expect((await s.run(rename)).changed).toBe("this run's harness.repr was replaced");
    expect(await s.run('6 * 7')).toMatchObject({ result: '42', changed: null });
    const recode = 'import gc, types\nasync def fake(code, limit):\n    return [{"text": "1337", "dropped": 0}, None, None]\nfor o in gc.get_objects():\n    if type(o) is types.FunctionType and o.__code__.co_filename == "<sandbox-harness>":\n        o.__code__ = fake.__code__';
    expect((await s.run(recode)).changed).toMatch(/^this run's harness\.\w+\.__code__ was replaced$/);
    expect(await s.run('6 * 7')).toMatchObject({ result: '42', changed: null });
  });

  // Each changes what the harness runs on, then puts it back: the check names the change, then sees none.
  const reversible: Array<[string, string, string, RegExp]> = [
    ['builtins.repr', 'import builtins\nreal = builtins.repr\nbuiltins.repr = lambda o: "1337"', 'builtins.repr = real', /^builtins\.repr was replaced$/],
    ['a name added to a module', 'import asyncio.tasks\nasyncio.tasks.len = lambda x: 0', 'del asyncio.tasks.len', /^asyncio\.tasks: a name was added, removed or renamed$/],
    ['traceback.format_exception', 'import traceback\nreal = traceback.format_exception\ntraceback.format_exception = lambda *a, **k: ["1337"]', 'traceback.format_exception = real', /^traceback\.format_exception was replaced$/],
    ['a method of the event loop class', 'import pyodide.webloop as w\nreal = w.WebLoop.call_soon\nw.WebLoop.call_soon = lambda self, *a, **k: real(self, *a, **k)', 'w.WebLoop.call_soon = real', /^pyodide\.webloop\.WebLoop\.call_soon was replaced$/],
    ['a method shadowed on the loop itself', 'import asyncio\nloop = asyncio.get_event_loop()\nloop.call_soon = loop.call_soon', 'del loop.call_soon', /^the event loop was changed/],
    ['a task factory', 'import asyncio\nasyncio.get_event_loop().set_task_factory(lambda loop, coro, **k: asyncio.Task(coro, loop=loop, **k))', 'asyncio.get_event_loop().set_task_factory(None)', /^the event loop was changed/],
    ['an AST class', 'import ast\nast.Expression.__init__ = lambda self, *a, **k: None', 'del ast.Expression.__init__', /Expression: a name was added, removed or renamed$/],
    ['a trace function', 'import sys\nsys.settrace(lambda *a: None)', 'sys.settrace(None)', /^a trace function \(sys\.settrace\) was left set$/],
    ['a sys.monitoring tool', 'import sys\nsys.monitoring.use_tool_id(3, "spy")', 'sys.monitoring.free_tool_id(3)', /^a sys\.monitoring tool \(id 3\) was left registered$/],
    ['a gc callback', 'import gc\ngc.callbacks.append(lambda phase, info: None)', 'gc.callbacks.clear()', /^a gc callback \(gc\.callbacks\) was left registered$/],
  ];
  for (const [name, change, undo, found] of reversible) {
    it(`names ${name} changed, and sees nothing once it is put back`, async () => {
      expect((await s.run(change)).changed).toMatch(found);
      expect(s.harness.changed()).toMatch(found);
      s.undo(undo);
      expect(s.harness.changed()).toBeNull();
      expect(await s.run('6 * 7')).toMatchObject({ result: '42', changed: null });
    });
  }

  it('refuses audit hooks and changes to the code of what the harness runs on, and says so from then on', async () => {
    const t = await session();
    const hook = await t.run('import sys\nseen = []\nsys.addaudithook(seen.append)\n1');
    expect(hook).toMatchObject({ result: '1', changed: 'the code tried to add an audit hook (sys.addaudithook), which was refused' });
    const u = await session();
    const recode = await u.run('import asyncio\nasyncio.tasks.ensure_future.__code__ = (lambda *a, **k: None).__code__');
    expect(recode.error).toMatch(/RuntimeError: the sandbox refuses changes to the functions its harness runs on\n$/);
    expect(recode.changed).toBe('the code tried to replace __code__ of ensure_future, which the harness runs on, which was refused');
    expect(u.harness.changed()).toBe(recode.changed);
  });
});
