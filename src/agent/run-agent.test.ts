/**
 * The agent loop in Node: the tiny model (real onnxruntime kernels, real sampler) with the model's
 * side forced by a logits processor, the real parser and renderer, and real tool plumbing.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { emittedText, renderSegments, segmentsToText } from '../format/render';
import { loadTokenizer } from '../format/tokenizer/load-node';
import type { Conversation, Message } from '../format/types';
import { defineCustomTool } from '../tools/custom-tool';
import type { Tool } from '../tools/tool';
import { AppFailure } from '../tools/app-failure';
import { LOOP_TEXTS } from '../tools/failure-texts';
import { createNodeEngine } from '../../worker/create-node-engine';
import type { Engine } from '../../worker/engine';
import type { AgentEvent } from './events';
import { runAgent, type RunAgentOptions } from './run-agent';
import { collect, ofType } from './collect-events';
import { forceSteps } from '../../tests/support/force-steps';

const tokenizer = loadTokenizer();
let engine: Engine;
beforeAll(async () => {
  engine = createNodeEngine();
  await engine.load('tiny-llama');
});
afterAll(() => engine.unload());

const DATE = '11 August 2026';
const ask = (question: string): Conversation => ({ date: DATE, messages: [{ role: 'user', content: question }] });

const weatherSpec = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  readOnly: true,
} as const;
const weather = defineCustomTool({ ...weatherSpec, execute: async ({ city }) => ({ city, temperature_c: 21 }) });
const clock = defineCustomTool({
  name: 'get_time',
  description: 'Current time in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  readOnly: true,
  execute: async ({ city }) => `12:00 in ${String(city)}`,
});

async function run(scripts: string[], tools: Tool[], extra: Partial<RunAgentOptions> = {}, conversation = ask('Weather in Paris?')) {
  const events = await collect(
    runAgent({ engine, tokenizer, tools, conversation, logitsProcessors: forceSteps(scripts, tokenizer), sampling: { temperature: 0.6, seed: 1 }, ...extra }),
  );
  const finish = ofType(events, 'finish')[0]!;
  return { events, finish, results: ofType(events, 'tool-result'), messages: finish.messages };
}

/** The transcript must always render (valid turn order) so the conversation can go on. */
function rendersOn(messages: Message[], tools: Tool[] = []) {
  return segmentsToText(renderSegments({ date: DATE, messages: [...messages, { role: 'user', content: 'next' }], ...(tools.length ? { builtinTools: [] } : {}) }), tokenizer);
}

describe('the loop', () => {
  it('a custom call ending in eot is executed, its result appended, and a plain eot answer ends the loop', async () => {
    const { events, finish, results, messages } = await run(
      ['{"name": "get_weather", "parameters": {"city": "Paris"}}<|eot_id|>', 'It is 21 degrees in Paris.<|eot_id|>'],
      [weather],
    );
    expect(ofType(events, 'tool-call').map((e) => e.call)).toEqual([{ kind: 'custom', name: 'get_weather', arguments: { city: 'Paris' } }]);
    expect(results.map((r) => [r.name, r.content, r.isError])).toEqual([['get_weather', '{"city": "Paris", "temperature_c": 21}', false]]);
    expect(finish).toMatchObject({ reason: 'done', text: 'It is 21 degrees in Paris.', steps: 2 });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'ipython', 'assistant']);
    expect(messages[1]).toMatchObject({ stop: 'eot', toolCalls: [{ kind: 'custom', name: 'get_weather' }] });
    expect(emittedText(messages[1]!, tokenizer)).toBe('{"name": "get_weather", "parameters": {"city": "Paris"}}');
    rendersOn(messages);
  });

  it('two calls in one turn give two ipython turns in call order', async () => {
    const { results, messages, finish } = await run(
      ['{"name": "get_time", "parameters": {"city": "Oslo"}}; {"name": "get_weather", "parameters": {"city": "Oslo"}}<|eot_id|>', 'Noon and mild.<|eot_id|>'],
      [weather, clock],
    );
    expect(results.map((r) => r.content)).toEqual(['12:00 in Oslo', '{"city": "Oslo", "temperature_c": 21}']);
    expect(messages.slice(2, 4)).toEqual([
      { role: 'ipython', content: '12:00 in Oslo' },
      { role: 'ipython', content: '{"city": "Oslo", "temperature_c": 21}' },
    ]);
    expect(finish.reason).toBe('done');
  });

  it('each step prefills only what was appended: the previous prompt, the emitted ids and the new turns are reused', async () => {
    const { events } = await run(['{"name": "get_weather", "parameters": {"city": "Paris"}}<|eot_id|>', 'Mild.<|eot_id|>'], [weather]);
    const [first, second] = ofType(events, 'step-finish');
    expect(second!.prompt.ids.slice(0, first!.prompt.ids.length)).toEqual(first!.prompt.ids);
    const emitted = tokenizer.encode('{"name": "get_weather", "parameters": {"city": "Paris"}}');
    expect(second!.stats.reusedTokens).toBe(first!.prompt.ids.length + emitted.length);
    expect(second!.stats.prefilledTokens).toBe(second!.prompt.ids.length - first!.prompt.ids.length - emitted.length);
  });

  it("the python tag's characters written as ordinary tokens stay text: no call runs, the answer shows them", async () => {
    let ran = 0;
    const interpreter: Tool = { name: 'code_interpreter', description: 'Python', parameters: { type: 'object' }, execute: async () => (ran++, 'ran') };
    const echoed = 'It said <|python_tag|>print(open("/etc/passwd").read())';
    const forced = [...tokenizer.encode(echoed), 128009];
    expect(forced.slice(0, -1)).not.toContain(128010);
    const { finish, events } = await run([], [interpreter], { logitsProcessors: (step) => (step === 0 ? [{ type: 'force', tokens: forced }] : undefined) });
    expect(ran).toBe(0);
    expect(ofType(events, 'tool-call')).toEqual([]);
    expect(finish).toMatchObject({ reason: 'done', text: echoed, steps: 1 });
    expect(ofType(events, 'text-delta').every((d) => d.part === 'prose')).toBe(true);
    rendersOn(finish.messages);
  });

  it('streams the prose before the real tag as prose and the call after it as call; step-finish carries the parsed step', async () => {
    const { events } = await run(['Let me run it.<|python_tag|>print(6 * 7)<|eom_id|>', 'It is 42.<|eot_id|>'], [
      { name: 'code_interpreter', description: 'Python', parameters: { type: 'object' }, execute: async () => ({ stdout: '42\n' }) },
    ]);
    const deltas = ofType(events, 'text-delta').filter((d) => d.step === 0);
    expect(deltas.filter((d) => d.part === 'prose').map((d) => d.text).join('')).toBe('Let me run it.');
    expect(deltas.filter((d) => d.part === 'call').map((d) => d.text).join('')).toBe('<|python_tag|>print(6 * 7)');
    const [first] = ofType(events, 'step-finish');
    expect(first).toMatchObject({ content: 'Let me run it.', toolCalls: [{ kind: 'code', name: 'code_interpreter', arguments: { code: 'print(6 * 7)' } }], stop: 'eom', stopId: 128008 });
    expect(first!.ids).toContain(128010);
  });

  it('maxSteps bounds a model that keeps calling', async () => {
    const call = '{"name": "get_weather", "parameters": {"city": "Paris"}}<|eot_id|>';
    const { finish, results } = await run([call, call, call, call], [weather], { maxSteps: 3 });
    expect(finish).toMatchObject({ reason: 'max_steps', steps: 3 });
    expect(results).toHaveLength(3);
    rendersOn(finish.messages);
  });
});

describe('errors are data the model can read; the loop goes on', () => {
  const cases: Record<string, { scripts: string[]; tools: Tool[]; extra?: Partial<RunAgentOptions>; result: RegExp }> = {
    'unknown tool': {
      scripts: ['{"name": "get_stock", "parameters": {"ticker": "X"}}<|eot_id|>', 'Sorry.<|eot_id|>'],
      tools: [weather],
      result: /^\{"error": "unknown tool \\"get_stock\\"", "available_tools": \["get_weather"\]\}$/,
    },
    'invalid arguments': {
      scripts: ['{"name": "get_weather", "parameters": {"city": 42}}<|eot_id|>', 'Sorry.<|eot_id|>'],
      tools: [weather],
      result: /"error": ".*city.*must be string/,
    },
    'tool throws': {
      scripts: ['{"name": "boom", "parameters": {}}<|eot_id|>', 'Sorry.<|eot_id|>'],
      tools: [{ name: 'boom', description: 'fails', parameters: { type: 'object' }, execute: async () => Promise.reject(new Error('disk on fire')) }],
      result: /"error": "disk on fire"/,
    },
    'tool timeout': {
      scripts: ['{"name": "slow", "parameters": {}}<|eot_id|>', 'Sorry.<|eot_id|>'],
      tools: [{ name: 'slow', description: 'hangs', parameters: { type: 'object' }, execute: () => new Promise(() => {}) }],
      extra: { toolTimeoutMs: 300 },
      result: /^\{"error": "timeout after 0\.3s"\}$/,
    },
    'denied confirmation': {
      scripts: ['{"name": "send_email", "parameters": {"to": "a@b.c"}}<|eot_id|>', 'Not sent.<|eot_id|>'],
      tools: [
        defineCustomTool({
          name: 'send_email',
          description: 'Sends an email',
          parameters: { type: 'object', properties: { to: { type: 'string' } } },
          execute: async () => 'sent',
        }),
      ],
      extra: { confirm: async () => false },
      result: /declined to run send_email/,
    },
    'code interpreter not enabled': {
      scripts: ['<|python_tag|>print(1)<|eom_id|>', 'Sorry.<|eot_id|>'],
      tools: [weather],
      result: /the code interpreter is not enabled/,
    },
  };
  for (const [name, { scripts, tools, extra, result }] of Object.entries(cases)) {
    it(name, async () => {
      const { results, finish } = await run(scripts, tools, extra);
      expect(results).toHaveLength(1);
      expect(results[0]!.isError).toBe(true);
      expect(results[0]!.content).toMatch(result);
      expect(finish).toMatchObject({ reason: 'done', steps: 2 });
      expect(finish.text).toBe(scripts[1]!.replace('<|eot_id|>', ''));
      rendersOn(finish.messages);
    });
  }

  it('a call the app cannot read ends the turn: nothing runs, the model is not asked again, the card says why', async () => {
    const ran: string[] = [];
    const counted = defineCustomTool({ ...weatherSpec, execute: async ({ city }) => (ran.push(String(city)), { city }) });
    const { events, results, finish, messages } = await run(
      ['{"name": "get_weather", "parameters": {"city": "Par<|eot_id|>', 'Sorry, the search failed.<|eot_id|>'],
      [counted],
    );
    expect(finish).toMatchObject({ reason: 'unreadable_call', steps: 1 });
    expect(ofType(events, 'step-start')).toHaveLength(1);
    expect(ran).toEqual([]);
    expect(results.map((r) => r.failure?.kind)).toEqual(['unreadable_call']);
    expect(results[0]!.failure!.message).toMatch(/^The model wrote a tool call this app could not read \(.+\), so nothing was run\.$/);
    // The transcript keeps a result for the call: the failure text the model was trained on, read only in later turns.
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'ipython']);
    expect(JSON.parse(messages[2]!.content as string).error).toMatch(/^could not read the tool call: /);
    expect(finish.text).not.toMatch(/could not read/);
    rendersOn(messages);
  });

  it("the app's own failure (AppFailure) ends the turn; the model never reads its text", async () => {
    const broken: Tool = { name: 'get_time', description: 'Current time', parameters: { type: 'object' }, execute: async () => Promise.reject(new AppFailure('The Python interpreter could not run the code (it did not start).')) };
    const ran: string[] = [];
    const counted = defineCustomTool({ ...weatherSpec, execute: async ({ city }) => (ran.push(String(city)), { city }) });
    const { events, results, finish, messages } = await run(
      ['{"name": "get_time", "parameters": {}}; {"name": "get_weather", "parameters": {"city": "Oslo"}}<|eot_id|>', 'It is noon.<|eot_id|>'],
      [broken, counted],
    );
    expect(finish).toMatchObject({ reason: 'app_failure', steps: 1 });
    expect(ofType(events, 'step-start')).toHaveLength(1);
    expect(ran).toEqual([]);
    expect(results.map((r) => r.failure)).toEqual([
      { kind: 'app_failure', message: 'The Python interpreter could not run the code (it did not start).' },
      { kind: 'not_run', message: 'Not run: the turn ended before this call.' },
    ]);
    expect(messages.slice(2).map((m) => m.content)).toEqual([{ error: LOOP_TEXTS.notRun() }, { error: LOOP_TEXTS.notRun() }]);
    expect(JSON.stringify(messages)).not.toContain('interpreter');
    rendersOn(messages);
  });

  it('a confirmed tool runs, and the request was announced first', async () => {
    let asked = 0;
    const mailer = defineCustomTool({ name: 'send_email', description: 'Sends', parameters: { type: 'object' }, execute: async () => 'sent' });
    const { events, results } = await run(['{"name": "send_email", "parameters": {}}<|eot_id|>', 'Sent.<|eot_id|>'], [mailer], {
      confirm: async () => ++asked > 0,
    });
    const types = events.map((e) => e.type);
    expect(types.indexOf('confirmation-request')).toBeLessThan(types.indexOf('tool-result'));
    expect(results[0]).toMatchObject({ content: 'sent', isError: false });
  });

  describe('a tool that says where its data goes', () => {
    const lookup = (onDevice: boolean): Tool => ({
      name: 'lookup',
      description: 'Looks up',
      parameters: { type: 'object' },
      needsConfirmation: true,
      destination: async () => (onDevice ? { onDevice: true } : { onDevice: false, service: 'Brave Search', host: 'api.search.brave.com' }),
      execute: async () => 'found',
    });
    const scripts = ['{"name": "lookup", "parameters": {}}<|eot_id|>', 'Found.<|eot_id|>'];

    it('answered on this device: runs without asking', async () => {
      const asked: unknown[] = [];
      const { events, results } = await run(scripts, [lookup(true)], { confirm: async (_call, where) => { asked.push(where); return true; } });
      expect(asked).toEqual([]);
      expect(events.map((e) => e.type)).not.toContain('confirmation-request');
      expect(results[0]).toMatchObject({ content: 'found', isError: false });
    });

    it('answered on this device with confirmOnDevice: asked, and told nothing is sent', async () => {
      const asked: unknown[] = [];
      const { results } = await run(scripts, [lookup(true)], { confirmOnDevice: true, confirm: async (_call, where) => asked.push(where) > 0 });
      expect(asked).toEqual([{ onDevice: true }]);
      expect(results[0]).toMatchObject({ content: 'found', isError: false });
    });

    it('sent out: asked, with the service and host; a denial is the declined result', async () => {
      const asked: unknown[] = [];
      const { results } = await run(scripts, [lookup(false)], { confirm: async (_call, where) => asked.push(where) < 0 });
      expect(asked).toEqual([{ onDevice: false, service: 'Brave Search', host: 'api.search.brave.com' }]);
      expect(results[0]!.content).toMatch(/declined to run lookup/);
    });
  });

  it('eom with nothing callable gets one error result; a repeat ends the loop', async () => {
    const { results, finish, messages } = await run(['Let me think.<|eom_id|>', 'Still thinking.<|eom_id|>'], [weather]);
    expect(results).toHaveLength(0);
    expect(messages.filter((m) => m.role === 'ipython')).toHaveLength(2);
    expect(JSON.stringify(messages[2]!.content)).toMatch(/no tool call/);
    expect(finish.reason).toBe('no_progress');
    rendersOn(messages);
  });
});

describe('bounds and failures', () => {
  it('abort mid-tool: the call gets an error result, the run finishes aborted, the engine stays usable', async () => {
    const controller = new AbortController();
    const hang: Tool = {
      name: 'hang',
      description: 'never returns',
      parameters: { type: 'object' },
      execute: () => {
        setTimeout(() => controller.abort(), 50);
        return new Promise(() => {});
      },
    };
    const { finish, messages } = await run(['{"name": "hang", "parameters": {}}<|eot_id|>'], [hang], { signal: controller.signal });
    expect(finish.reason).toBe('aborted');
    expect(messages.at(-1)).toEqual({ role: 'ipython', content: { error: 'aborted by the user' } });
    rendersOn(messages);
    const after = await run(['Fine.<|eot_id|>'], []);
    expect(after.finish).toMatchObject({ reason: 'done', text: 'Fine.' });
  });

  it('abort mid-generation keeps the partial answer as a finished turn', async () => {
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    for await (const e of runAgent({ engine, tokenizer, conversation: ask('Talk.'), signal: controller.signal, sampling: { temperature: 0 }, maxTokensPerStep: 500 })) {
      events.push(e);
      if (e.type === 'text-delta') controller.abort();
    }
    const finish = ofType(events, 'finish')[0]!;
    expect(finish.reason).toBe('aborted');
    expect(finish.messages.at(-1)).toMatchObject({ role: 'assistant', stop: 'eot' });
    rendersOn(finish.messages);
  });

  it('the time budget ends the run, whenever it runs out (driven by the test, not the clock)', async () => {
    // Only the loop's budget timer is faked: it can fire only when the test advances it, i.e. while the tool runs.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const slow: Tool = { name: 'slow', description: 'hangs', parameters: { type: 'object' }, execute: () => (started(), new Promise(() => {})) };
      const pending = run(['{"name": "slow", "parameters": {}}<|eot_id|>'], [slow], { timeBudgetMs: 60_000, toolTimeoutMs: 3_600_000 });
      await running;
      vi.advanceTimersByTime(60_000);
      const { finish } = await pending;
      expect(finish.reason).toBe('time_budget');
      expect(finish.messages.at(-1)).toEqual({ role: 'ipython', content: { error: 'the time budget ran out' } });
    } finally {
      vi.useRealTimers();
    }
  });

  it('a Llama 3.0 checkpoint is refused for tool mode with a clear message', async () => {
    const { events, finish } = await run([], [weather], {
      model: { modelId: 'Llama-3-8B-Instruct-q4f16_1-MLC', backend: 'webllm', contextWindow: 4096, toolCalling: false, device: 'webgpu', sampling: {} },
    });
    expect(ofType(events, 'error')[0]!.error).toMatchObject({ code: 'tool_mode_unsupported', message: expect.stringMatching(/not trained on Llama 3.1's tool format/) });
    expect(finish.reason).toBe('error');
  });

  it('context overflow is an error event; the engine stays usable', async () => {
    const huge = ask('word '.repeat(5000));
    const { events, finish } = await run([], [], {}, huge);
    expect(ofType(events, 'error')[0]!.error).toMatchObject({ name: 'EngineError', code: 'context_overflow' });
    expect(finish.reason).toBe('error');
    expect((await run(['Ok.<|eot_id|>'], [])).finish.text).toBe('Ok.');
  });

  it('a step that hits its token limit ends with "length"', async () => {
    const { finish } = await run([], [], { maxTokensPerStep: 3, sampling: { temperature: 0 }, logitsProcessors: () => [{ type: 'ban', tokens: [128001, 128008, 128009] }] });
    expect(finish.reason).toBe('length');
  });
});

describe('a step that loops', () => {
  const sentence = ' I cannot do that without your permission.';
  const looping = `${sentence.repeat(30)}<|eot_id|>`;

  it('is stopped once it repeats one block 5 times; the run ends with "repetition" and the transcript goes on', async () => {
    const { finish, events } = await run([looping], []);
    expect(finish.reason).toBe('repetition');
    const step = ofType(events, 'step-finish')[0]!;
    const block = tokenizer.encode(sentence).length;
    // Stopped a few id batches after the 5th copy: nowhere near the 30 forced.
    expect(step.stats.decodedTokens).toBeLessThan(block * 15);
    expect(step.stats.decodedTokens).toBeGreaterThanOrEqual(block * 5);
    expect(finish.messages.at(-1)).toMatchObject({ role: 'assistant', stop: 'eot', ids: step.ids });
    rendersOn(finish.messages);
    const next = await run(['Sorry about that.<|eot_id|>'], [], {}, { date: DATE, messages: [...finish.messages, { role: 'user', content: 'Again?' }] });
    expect(next.finish).toMatchObject({ reason: 'done', text: 'Sorry about that.' });
  });

  it('runs to its end with the guard off (repetition: false)', async () => {
    const { finish } = await run([looping], [], { repetition: false, maxTokensPerStep: 1024 });
    expect(finish.reason).toBe('done');
    expect(finish.text.trim()).toBe(sentence.repeat(30).trim());
  });

  it("asks the engine for at most a quarter of the model's context per step", async () => {
    const asked: Array<number | undefined> = [];
    const spy: RunAgentOptions['engine'] = { generate: (request, onIds, signal) => (asked.push(request.maxTokens), engine.generate(request, onIds, signal)) };
    const info = (contextWindow: number) => ({ modelId: 'tiny-llama', backend: 'onnx' as const, contextWindow, toolCalling: true, device: 'cpu', sampling: {} });
    await run(['Ok.<|eot_id|>'], [], { engine: spy, model: info(1024) });
    await run(['Ok.<|eot_id|>'], [], { engine: spy, model: info(4096) });
    expect(asked).toEqual([256, 1024]);
  });
});

describe('a tool with its own time limit', () => {
  it('reports its own timeout (e.g. lost interpreter state) before the loop\'s timeout fires', async () => {
    const selfTimed: Tool = {
      name: 'selfish',
      description: 'enforces its own limit',
      parameters: { type: 'object' },
      timeoutMs: 200,
      execute: () => new Promise((resolve) => setTimeout(() => resolve({ error: 'timeout after 0.2s; state was lost' }), 200)),
    };
    const { results } = await run(['{"name": "selfish", "parameters": {}}<|eot_id|>', 'Ok.<|eot_id|>'], [selfTimed], { toolTimeoutMs: 100 });
    expect(results[0]!.content).toBe('{"error": "timeout after 0.2s; state was lost"}');
  });
});
