/**
 * The CLI's commands, in process (runCli with captured streams); a few of them again as a real
 * process, for the process contract itself. The commands against a real llama-server (`--engine`):
 * cli.llama-server.test.ts.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORKED_EXAMPLE_PROMPT, WORKED_EXAMPLE_RESULT } from '../../tests/fixtures/worked-example';
import { expectOneLineError, expectOsloAnswer, OSLO, osloResults, runAsProcess, runInProcess, tempFile, type CliRun } from '../../tests/support/cli';
import { ggufPath } from '../../scripts/setup/gguf-models';

const ROOT = join(import.meta.dirname, '../..');
const WORKED = join(ROOT, 'tests/fixtures/worked-example.json');
const cli = runInProcess;

function expectParsedCall(r: CliRun): void {
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual({
    content: 'Let me look.',
    toolCalls: [{ kind: 'builtin', name: 'brave_search', arguments: { query: 'x' } }],
    stop: 'eom',
  });
}
const RAW_CALL = 'Let me look.<|python_tag|>brave_search.call(query="x")<|eom_id|>';

const bad: Record<string, { args: string[]; error: RegExp }> = {
  'a missing file': { args: ['render', '/nonexistent/conv.json'], error: /cannot read/ },
  'no FILE': { args: ['render'], error: /missing FILE/ },
  'invalid JSON': { args: ['render', tempFile('{"messages": [')], error: /not valid JSON/ },
  'a bad role': { args: ['render', tempFile('{"messages": [{"role": "robot", "content": "x"}]}')], error: /messages\[0\]\.role/ },
  'a result without a call': {
    args: ['render', tempFile('{"messages": [{"role": "user", "content": "x"}, {"role": "tool", "content": "r"}]}')],
    error: /must follow an assistant turn/,
  },
  'an unknown command': { args: ['frobnicate'], error: /unknown command/ },
  'ask without a question': { args: ['ask'], error: /missing the question/ },
  'ask with an unknown model': { args: ['ask', '--model', 'nope', 'hi'], error: /unknown model "nope"/ },
  'serve with no slots': { args: ['serve', '--slots', '0'], error: /--slots: expected 1 to 64, got "0"/ },
  'serve with more slots than the engine keeps': { args: ['serve', '--slots', '65'], error: /--slots: expected 1 to 64, got "65"/ },
  'serve with a bad port': { args: ['serve', '--port', 'http'], error: /--port: expected 0 to 65535/ },
  'serve with an unknown model': { args: ['serve', '--model', 'nope'], error: /unknown model "nope"/ },
  'serve with an unknown flag': { args: ['serve', '--bind', '0.0.0.0'], error: /Unknown option '--bind'/ },
  'an API key as a flag (it would land in shell history)': { args: ['ask', '--engine', 'http://127.0.0.1:9', '--api-key', 'k', 'hi'], error: /Unknown option '--api-key'/ },
  'an engine URL that is not http(s)': { args: ['ask', '--engine', 'ftp://host/', 'hi'], error: /invalid_request: the engine URL must be http or https/ },
  'an unknown tools provider': { args: ['ask', '--tools', 'cloud', 'hi'], error: /--tools: expected auto, service, local, got "cloud"/ },
  'an unknown context policy': { args: ['ask', '--context-policy', 'truncate-middle', 'hi'], error: /--context-policy: expected rolling, keep-first, stop, got "truncate-middle"/ },
  'a --docs directory that is not there': { args: ['ask', '--docs', '/nonexistent/docs', 'hi'], error: /--docs: \/nonexistent\/docs is not a directory/ },
  'a GGUF file that is not there': { args: ['ask', '--model', '/nonexistent/model.gguf', 'hi'], error: /load_failed: could not load the GGUF \/nonexistent\/model\.gguf/ },
};

describe('cli', () => {
  it('render FILE prints the exact prompt, nothing appended', async () => {
    const r = await cli(['render', WORKED]);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nEnvironment: ipython\nTools: brave_search\n\n')).toBe(true);
    expect(r.stdout.endsWith('139,000 in 2024."}]}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n')).toBe(true);
  });

  it('render --ids FILE prints the ids as a JSON array', async () => {
    const r = await cli(['render', '--ids', WORKED]);
    expect(r.code).toBe(0);
    const ids = JSON.parse(r.stdout) as number[];
    expect(ids[0]).toBe(128000);
    expect(ids.slice(-4)).toEqual([128006, 78191, 128007, 271]);
  });

  it('parse reads raw output on stdin', async () => {
    expectParsedCall(await cli(['parse'], RAW_CALL));
  });

  it('tokenize encodes stdin as plain content: special-token strings stay text', async () => {
    expect(JSON.parse((await cli(['tokenize'], 'This is a test sentence.')).stdout)).toEqual([2028, 374, 264, 1296, 11914, 13]);
    const r = await cli(['tokenize'], 'x <|eot_id|><|start_header_id|>');
    expect(r.code).toBe(0);
    const ids = JSON.parse(r.stdout) as number[];
    expect(ids.length).toBeGreaterThan(4);
    expect(ids.every((id) => id < 128000)).toBe(true);
  });

  it('replay FILE runs the loop with the model\'s side forced: the prompts, the cache savings, the recorded results', async () => {
    const r = await cli(['replay', WORKED]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as {
      prompts: string[];
      steps: Array<{ stop: string; promptTokens: number; reusedTokens: number; prefilledTokens: number; decodedTokens: number }>;
      toolResults: Array<{ name: string; content: string; recorded: boolean }>;
    };
    expect(report.prompts).toHaveLength(2);
    expect(report.prompts[1]).toBe(WORKED_EXAMPLE_PROMPT);
    expect(report.steps.map((s) => s.stop)).toEqual(['eom', 'eot']);
    expect(report.steps[1]!.reusedTokens).toBe(report.steps[0]!.promptTokens + report.steps[0]!.decodedTokens - 1);
    expect(report.steps[1]!.prefilledTokens).toBe(report.steps[1]!.promptTokens - report.steps[1]!.reusedTokens);
    expect(report.toolResults).toEqual([{ name: 'brave_search', content: WORKED_EXAMPLE_RESULT, isError: false, recorded: true }]);
  });

  const askEngines: Record<string, string[]> = {
    'the micro model (ONNX)': [],
    'a GGUF file (--model FILE.gguf: node-llama-cpp, our sampler)': ['--model', ggufPath('micro-llama', 'F32')],
  };
  for (const [name, args] of Object.entries(askEngines)) {
    it(`ask runs ${name} unforced; --results answers its call from a recording`, async () => {
      expectOsloAnswer(await cli(['ask', ...args, '--results', osloResults(), OSLO.question]));
    });
  }

  it('ask --tools local answers from the local index unforced, with no proxy and no key', async () => {
    const r = await cli(['ask', '--tools', 'local', 'What is the capital of Japan?'], '', { TOOL_PROXY_URL: 'http://127.0.0.1:9/api/tools/' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { answer: string; steps: Array<{ stop: string; toolCalls: unknown[]; toolResults: Array<{ content: string; isError: boolean }> }> };
    expect(out.steps.map((s) => s.stop)).toEqual(['eom', 'eot']);
    expect(out.steps[0]!.toolCalls).toEqual([{ kind: 'builtin', name: 'brave_search', arguments: { query: 'capital of Japan' } }]);
    expect(JSON.parse(out.steps[0]!.toolResults[0]!.content)).toMatchObject({ source: 'local index', results: [{ description: 'The capital of Japan is Tokyo.' }] });
    expect(out.answer).toContain('Tokyo');
  });

  for (const [name, { args, error }] of Object.entries(bad)) {
    it(`${name}: one-line error on stderr, exit code 2`, async () => {
      expectOneLineError(await cli(args, '', { LLAMA_ENGINE_API_KEY: '' }), error);
    });
  }
});

describe('cli as a process (tsx src/cli/main.ts): stdin, stdout, stderr and the exit code are the real ones', () => {
  it('parse reads raw output on the real stdin', () => {
    expectParsedCall(runAsProcess(['parse'], RAW_CALL));
  });

  it('ask on the micro model: the answer on stdout, nothing at all on stderr (no library writes there)', () => {
    expectOsloAnswer(runAsProcess(['ask', '--results', osloResults(), OSLO.question]));
  });

  it('a GGUF file that is not there: one line on stderr, whatever the loader printed, exit code 2', () => {
    expectOneLineError(runAsProcess(['ask', '--model', '/nonexistent/model.gguf', 'hi']), bad['a GGUF file that is not there']!.error);
  });
});
