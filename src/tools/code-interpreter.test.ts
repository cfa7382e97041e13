import { describe, expect, it } from 'vitest';
import type { Sandbox, SandboxResult, SandboxRunOptions } from '../sandbox/sandbox';
import { codeInterpreterResult, codeInterpreterTool } from './code-interpreter';
import { AppFailure } from './app-failure';
import { ToolError } from './tool';

const base: SandboxResult = { stdout: '', stderr: '', result: null, error: null, stateLost: false, truncated: [], durationMs: 3 };

/** Records its calls and answers with a fixed result. */
function fakeSandbox(answer: Partial<SandboxResult> = {}) {
  const calls: Array<{ code: string; options?: SandboxRunOptions }> = [];
  let warmed = 0;
  const sandbox: Sandbox = {
    ready: false,
    startTimeoutMs: 60_000,
    warm: async () => void warmed++,
    run: async (code, options) => {
      calls.push({ code, options });
      return { ...base, ...answer };
    },
    reset: async () => {},
    dispose: () => {},
  };
  return { sandbox, calls, warmed: () => warmed };
}

describe('codeInterpreterResult', () => {
  const cases: Record<string, { input: Partial<SandboxResult>; expected: Record<string, unknown> }> = {
    'no output at all says so': { input: {}, expected: { stdout: '', note: 'no output' } },
    'stdout only': { input: { stdout: '1\n' }, expected: { stdout: '1\n' } },
    'the last expression only': { input: { result: '42' }, expected: { result: '42' } },
    'all fields, in order': {
      input: { stdout: 'a\n', stderr: 'w\n', result: "'x'", error: null },
      expected: { stdout: 'a\n', stderr: 'w\n', result: "'x'" },
    },
    'an error with lost state': {
      input: { error: 'timeout after 10s; the interpreter was restarted and its state was lost', stateLost: true },
      expected: { error: 'timeout after 10s; the interpreter was restarted and its state was lost', state_lost: true },
    },
    'cut fields are named': {
      input: { stdout: 'x[… 5 more characters not shown]', truncated: ['stdout'] },
      expected: { stdout: 'x[… 5 more characters not shown]', truncated: ['stdout'] },
    },
    'a result of an empty string is output': { input: { result: "''" }, expected: { result: "''" } },
    'work left running: the notice and the lost state, after the output': {
      input: { stdout: 'returned\n', stateLost: true, notice: 'the code left work running after it finished (…): its state was reset' },
      expected: { stdout: 'returned\n', note: 'the code left work running after it finished (…): its state was reset', state_lost: true },
    },
    'work left running and no output: the notice, not "no output"': {
      input: { stateLost: true, notice: 'state was reset' },
      expected: { note: 'state was reset', state_lost: true },
    },
  };
  for (const [name, { input, expected }] of Object.entries(cases)) {
    it(name, () => {
      const out = codeInterpreterResult({ ...base, ...input });
      expect(out).toEqual(expected);
      expect(Object.keys(out)).toEqual(Object.keys(expected));
    });
  }
});

describe('codeInterpreterTool', () => {
  it('is the built-in code_interpreter taking {code}', () => {
    const tool = codeInterpreterTool(fakeSandbox().sandbox);
    expect(tool.name).toBe('code_interpreter');
    expect(tool.parameters).toMatchObject({ type: 'object', required: ['code'], properties: { code: { type: 'string' } } });
    expect(tool.needsConfirmation).toBeFalsy();
  });

  it('runs the code with the context signal and the configured timeout', async () => {
    const fake = fakeSandbox({ stdout: '1\n' });
    const signal = new AbortController().signal;
    const out = await codeInterpreterTool(fake.sandbox, { timeoutMs: 5000 }).execute({ code: 'print(1)' }, { signal });
    expect(out).toEqual({ stdout: '1\n' });
    expect(fake.calls).toEqual([{ code: 'print(1)', options: { signal, timeoutMs: 5000 } }]);
  });

  it('defaults to 10 s and declares its limit, so the loop lets it report the timeout (and the lost state) itself', async () => {
    const fake = fakeSandbox();
    const tool = codeInterpreterTool(fake.sandbox);
    await tool.execute({ code: 'pass' }, { signal: new AbortController().signal });
    expect(fake.calls[0]!.options).toMatchObject({ timeoutMs: 10_000 });
    (fake.sandbox as { ready: boolean }).ready = true;
    expect(tool.timeoutMs).toBe(10_000);
  });

  it('a missing or blank code argument is a ToolError, and nothing runs', async () => {
    const fake = fakeSandbox();
    const tool = codeInterpreterTool(fake.sandbox);
    const signal = new AbortController().signal;
    for (const args of [{}, { code: 3 }, { code: '  \n' }]) {
      await expect(tool.execute(args, { signal })).rejects.toBeInstanceOf(ToolError);
    }
    expect(fake.calls).toEqual([]);
  });

  it('an interpreter that cannot run the code at all is the app\'s failure (AppFailure), never a result the model reads', async () => {
    const fake = fakeSandbox({ error: 'Pyodide did not start within 60s', unavailable: true });
    const e = await codeInterpreterTool(fake.sandbox).execute({ code: 'print(1)' }, { signal: new AbortController().signal }).then(() => null, (err: unknown) => err);
    expect(e).toBeInstanceOf(AppFailure);
    expect((e as AppFailure).message).toBe('The Python interpreter could not run the code (Pyodide did not start within 60s).');
  });

  it('warm() warms the sandbox', async () => {
    const fake = fakeSandbox();
    await codeInterpreterTool(fake.sandbox).warm();
    expect(fake.warmed()).toBe(1);
  });
});

describe('the code interpreter\'s own time limit', () => {
  it('covers the interpreter\'s startup until one is up, then only the run (the loop waits that long plus a second)', () => {
    const { sandbox } = fakeSandbox();
    const tool = codeInterpreterTool(sandbox, { timeoutMs: 5_000 });
    expect(tool.timeoutMs).toBe(65_000);
    (sandbox as { ready: boolean }).ready = true;
    expect(tool.timeoutMs).toBe(5_000);
  });
});
