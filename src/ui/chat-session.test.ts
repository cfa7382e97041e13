/**
 * The chat session in Node: the tiny model (real kernels, real sampler) with the model's side
 * forced, real tools. What the page relies on: the transcript carries over, errors roll back,
 * stop ends the turn (also while a confirmation is pending), regenerate replaces the last turn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptIds } from '../agent/scripted-output';
import { withScriptedSteps } from '../../tests/support/scripted-steps';
import type { EngineLike, LoadedModelInfo } from '../engine/contract';
import { loadTokenizer } from '../format/tokenizer/load-node';
import type { ToolCall } from '../format/types';
import { defineCustomTool } from '../tools/custom-tool';
import { createNodeEngine } from '../../worker/create-node-engine';
import type { Engine } from '../../worker/engine';
import { countingTokenizer } from '../../tests/support/counting-tokenizer';
import { ChatSession, type ConfirmAnswer, type SessionEvent } from './chat-session';

const tokenizer = loadTokenizer();
let engine: Engine;
let model: LoadedModelInfo;
beforeAll(async () => {
  engine = createNodeEngine();
  model = await engine.load('tiny-llama');
});
afterAll(() => engine.unload());

const weatherRuns: string[] = [];
const weather = defineCustomTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: async ({ city }) => {
    weatherRuns.push(String(city));
    return { city, sky: 'sunny' };
  },
});

/** The session under test drives the engine through a scripted wrapper (`force` below). */
const scripted = new WeakMap<ChatSession, ReturnType<typeof withScriptedSteps>>();

function session(confirm: (call: ToolCall, signal: AbortSignal) => Promise<ConfirmAnswer> = async () => 'once', info: () => LoadedModelInfo | null = () => model) {
  const forcing = withScriptedSteps(engine);
  const s = new ChatSession({
    engine: forcing,
    tokenizer: () => tokenizer,
    model: info,
    tools: () => [weather],
    settings: () => ({ sampling: { temperature: 0, seed: 1 }, maxSteps: 4, maxTokensPerStep: 64 }),
    confirm,
  });
  scripted.set(s, forcing);
  const events: SessionEvent[] = [];
  s.on((e) => events.push(e));
  return { s, events };
}
const force = (s: ChatSession, ...steps: string[]) => scripted.get(s)!.forceNextRun(steps.map((x) => scriptIds(x, tokenizer)));
const CALL = '{"name": "get_weather", "parameters": {"city": "Paris"}}<|eot_id|>';
const ends = (events: SessionEvent[]) => events.filter((e): e is Extract<SessionEvent, { type: 'turn-end' }> => e.type === 'turn-end');

describe('ChatSession', () => {
  it('a tool loop, then a second message that extends the transcript (the prompt reuses the cache)', async () => {
    const asked: string[] = [];
    const { s, events } = session(async (call) => {
      asked.push(call.name);
      return 'always';
    });
    force(s, CALL, 'Sunny in Paris.<|eot_id|>');
    await s.send('Weather in Paris?');
    force(s, CALL, 'Still sunny.<|eot_id|>');
    await s.send('And now?');
    expect(ends(events).map((e) => [e.reason, e.kept])).toEqual([['done', true], ['done', true]]);
    expect(asked).toEqual(['get_weather']); // "always allow" asked once
    const roles = s.transcript.map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'ipython', 'assistant', 'user', 'assistant', 'ipython', 'assistant']);
    const firstStepOfTurn2 = events.find((e) => e.type === 'agent' && e.turn === 2 && e.event.type === 'step-finish');
    const stats = firstStepOfTurn2?.type === 'agent' && firstStepOfTurn2.event.type === 'step-finish' ? firstStepOfTurn2.event.stats : null;
    expect(stats!.reusedTokens).toBeGreaterThan(50);
    expect(stats!.prefilledTokens).toBeLessThan(stats!.reusedTokens!);
  });

  it('a conversation keeps its date past midnight; a follow-up and contextTokens() encode nothing already rendered', async () => {
    const counting = countingTokenizer(tokenizer);
    let now = new Date(2026, 7, 11, 23, 59);
    const forcing = withScriptedSteps(engine);
    const s = new ChatSession({
      engine: forcing,
      tokenizer: () => counting,
      model: () => model,
      tools: () => [weather],
      settings: () => ({ sampling: { temperature: 0 }, maxSteps: 4, maxTokensPerStep: 64 }),
      confirm: async () => 'always',
      today: () => now,
    });
    const prompts: string[] = [];
    s.on((e) => e.type === 'agent' && e.event.type === 'step-finish' && prompts.push(e.event.prompt.text));
    forcing.forceNextRun([CALL, 'Sunny in Paris.<|eot_id|>'].map((x) => scriptIds(x, tokenizer)));
    await s.send('Weather in Paris?');
    now = new Date(2026, 7, 12, 0, 1);
    const before = counting.encoded.length;
    expect(s.contextTokens()).toBeGreaterThan(0);
    expect(counting.encoded.length).toBe(before); // read from the transcript, not rendered
    forcing.forceNextRun([scriptIds('Still sunny.<|eot_id|>', tokenizer)]);
    await s.send('And now?');
    expect(prompts.every((p) => p.includes('Today Date: 11 August 2026'))).toBe(true);
    expect(counting.encoded.slice(before)).toEqual(['And now?']); // only the new user turn's text
    expect(s.snapshot().renderOptions.date).toBe('2026-08-11');
  });

  it("a kept turn has its answer's stats: the tokens of all its steps, their decode time and the model", async () => {
    const { s, events } = session();
    force(s, CALL, 'Sunny in Paris.<|eot_id|>');
    await s.send('Weather in Paris?');
    const steps = events.flatMap((e) => (e.type === 'agent' && e.event.type === 'step-finish' ? [e.event.stats] : []));
    expect(steps).toHaveLength(2);
    expect(s.path[0]!.stats).toEqual({
      tokens: steps[0]!.decodedTokens + steps[1]!.decodedTokens,
      decodeMs: steps[0]!.decodeMs + steps[1]!.decodeMs,
      model: model.modelId,
    });
  });

  it('an error leaves the transcript as it was; regenerate retries the same message', async () => {
    const { s, events } = session(undefined, () => ({ ...model, toolCalling: false }));
    await s.send('Weather?');
    expect(ends(events)[0]).toMatchObject({ reason: 'error', kept: false, error: { code: 'tool_mode_unsupported' } });
    expect(s.transcript).toEqual([]);
    expect(s.canRegenerate).toBe(true);
  });

  it('stop while a confirmation is pending ends the turn and withdraws the question', async () => {
    let withdrawn = false;
    const { s, events } = session(
      (_call, signal) =>
        new Promise<ConfirmAnswer>(() => {
          signal.addEventListener('abort', () => (withdrawn = true));
          setTimeout(() => s.stop(), 20);
        }),
    );
    force(s, CALL, 'never');
    const before = weatherRuns.length;
    await s.send('Weather in Paris?');
    expect(ends(events)[0]).toMatchObject({ reason: 'aborted', kept: true });
    expect(withdrawn).toBe(true);
    expect(weatherRuns.length).toBe(before);
    // The transcript stays renderable: the next message works.
    force(s, 'Fine.<|eot_id|>');
    await s.send('Never mind.');
    expect(ends(events)[1]).toMatchObject({ reason: 'done' });
  });

  it('regenerate replaces the last turn with an alternative; the first answer is kept beside it', async () => {
    const { s, events } = session();
    force(s, 'First answer.<|eot_id|>');
    await s.send('Hi');
    const first = ends(events)[0]!.node!;
    force(s, 'Second answer.<|eot_id|>');
    await s.regenerate();
    const starts = events.filter((e) => e.type === 'turn-start');
    expect(starts.map((e) => e.type === 'turn-start' && e.replaces)).toEqual([null, first]);
    expect(s.transcript.map((m) => m.content)).toEqual(['Hi', 'Second answer.']);
    expect(s.siblings(first)).toEqual([first, ends(events)[1]!.node]);
    s.switchTo(first);
    expect(s.transcript.map((m) => m.content)).toEqual(['Hi', 'First answer.']);
  });
});

/** The step-finish events of run `turn`. */
const stepsOf = (events: SessionEvent[], turn: number) =>
  events.flatMap((e) => (e.type === 'agent' && e.turn === turn && e.event.type === 'step-finish' ? [e.event] : []));
/** How much of `prompt` differs from what the engine holds (`cached`): the suffix after their common prefix. */
const divergent = (cached: number[], prompt: number[]) => {
  let common = 0;
  while (common < Math.min(cached.length, prompt.length - 1) && cached[common] === prompt[common]) common++;
  return prompt.length - common;
};

describe('ChatSession alternatives', () => {
  it('regenerating an older turn and editing an older message branch there, keep every branch, and prefill only what diverges', async () => {
    const { s, events } = session();
    for (const [q, a] of [['One?', 'Uno.'], ['Two?', 'Dos.'], ['Three?', 'Tres.']]) {
      force(s, `${a}<|eot_id|>`);
      await s.send(q!);
    }
    const [one, two, three] = ends(events).map((e) => e.node!);
    const last = stepsOf(events, 3)[0]!;
    const cached = [...last.prompt.ids, ...last.ids];

    force(s, 'Deux.<|eot_id|>');
    await s.regenerate(two);
    expect(s.transcript.map((m) => m.content)).toEqual(['One?', 'Uno.', 'Two?', 'Deux.']);
    const regenerated = stepsOf(events, 4)[0]!;
    expect(regenerated.stats.prefilledTokens).toBe(divergent(cached, regenerated.prompt.ids));
    expect(regenerated.stats.prefilledTokens).toBe(1); // the prompt is a prefix of what the cache held

    force(s, 'Zwei.<|eot_id|>');
    await s.edit(two!, 'Two, in German?');
    expect(s.transcript.map((m) => m.content)).toEqual(['One?', 'Uno.', 'Two, in German?', 'Zwei.']);
    const edited = stepsOf(events, 5)[0]!;
    expect(edited.stats.prefilledTokens).toBe(divergent([...regenerated.prompt.ids, ...regenerated.ids], edited.prompt.ids));
    expect(edited.stats.prefilledTokens).toBeLessThan(edited.prompt.ids.length / 2);

    expect(s.siblings(two!)).toHaveLength(3);
    s.switchTo(two!);
    expect(s.transcript.map((m) => m.content)).toEqual(['One?', 'Uno.', 'Two?', 'Dos.', 'Three?', 'Tres.']);
    expect(s.path.map((n) => n.id)).toEqual([one, two, three]);
    expect(events.at(-1)).toEqual({ type: 'switched' });
  });

  it('a snapshot restores the tree, the allow-list and the rendered options; a follow-up prefills only what was appended', async () => {
    let asked = 0;
    const { s, events } = session(async () => (asked++, 'always'));
    force(s, CALL, 'Sunny in Paris.<|eot_id|>');
    await s.send('Weather in Paris?');
    const snapshot = structuredClone(s.snapshot());
    expect(snapshot.allowedTools).toEqual(['get_weather']);
    expect(snapshot.renderOptions).toMatchObject({ builtinTools: [], tools: [expect.objectContaining({ function: expect.objectContaining({ name: 'get_weather' }) })], date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });

    const restored = session(async () => (asked++, 'deny'));
    restored.s.restore(snapshot);
    expect(restored.s.transcript).toEqual(s.transcript);
    expect(restored.s.alwaysAllowed).toEqual(['get_weather']);
    const finalStep = stepsOf(events, 1).at(-1)!;
    expect(restored.s.contextTokens()).toBe(finalStep.prompt.ids.length + finalStep.ids.length + 1); // prompt, answer, <|eot_id|>
    force(restored.s, CALL, 'Still sunny.<|eot_id|>');
    await restored.s.send('And tomorrow?');
    const [first] = stepsOf(restored.events, 1);
    // The engine still holds the first session's last step: only the new user turn and header are prefilled.
    expect(first!.prompt.ids.slice(0, finalStep.prompt.ids.length + finalStep.ids.length)).toEqual([...finalStep.prompt.ids, ...finalStep.ids]);
    expect(first!.stats.prefilledTokens).toBe(divergent([...finalStep.prompt.ids, ...finalStep.ids], first!.prompt.ids));
    expect(asked).toBe(1); // the restored "always allow" was not asked again
  });

  it('a run that started before restore() writes nothing back', async () => {
    const { s } = session(
      () =>
        new Promise<ConfirmAnswer>(() => {
          setTimeout(() => s.restore({ tree: { nodes: {}, children: {}, selected: {} }, allowedTools: [], renderOptions: {} }), 10);
        }),
    );
    force(s, CALL, 'never');
    await s.send('Weather in Paris?');
    expect(s.transcript).toEqual([]);
  });
});

describe('ChatSession clear', () => {
  it('New chat during a run: the run stops and does not write its turn back', async () => {
    const { s, events } = session(
      () =>
        new Promise<ConfirmAnswer>(() => {
          setTimeout(() => s.clear(), 10);
        }),
    );
    force(s, CALL, 'never');
    await s.send('Weather in Paris?');
    expect(events.map((e) => e.type)).toContain('cleared');
    expect(ends(events)[0]).toMatchObject({ reason: 'aborted' });
    expect(s.transcript).toEqual([]);
  });
});

describe('ChatSession "always allow" and New chat', () => {
  it('"always allow" is listed and revocable; New chat forgets it and resets the tools', async () => {
    const asked: string[] = [];
    let cleared = 0;
    const forcing = withScriptedSteps(engine);
    const s = new ChatSession({
      engine: forcing,
      tokenizer: () => tokenizer,
      model: () => model,
      tools: () => [weather],
      settings: () => ({ sampling: { temperature: 0, seed: 1 }, maxSteps: 4, maxTokensPerStep: 64 }),
      confirm: async (call) => {
        asked.push(call.name);
        return 'always';
      },
      onClear: () => cleared++,
    });
    scripted.set(s, forcing);
    const allowed: string[][] = [];
    s.on((e) => e.type === 'allowed' && allowed.push(e.names));
    const ask = async () => {
      force(s, CALL, 'Sunny.<|eot_id|>');
      await s.send('Weather in Paris?');
    };
    await ask();
    await ask();
    expect([asked, s.alwaysAllowed]).toEqual([['get_weather'], ['get_weather']]);
    s.revoke('get_weather');
    await ask();
    expect(asked).toHaveLength(2); // asked again after the revoke
    s.clear();
    expect([s.alwaysAllowed, cleared]).toEqual([[], 1]);
    await ask();
    expect(asked).toHaveLength(3); // a new conversation asks again
    expect(allowed).toEqual([['get_weather'], [], ['get_weather'], [], ['get_weather']]);
  });
});

describe('ChatSession sampling', () => {
  it("a model's own sampling (the micro model is greedy) wins over the user's settings", async () => {
    const seen: Array<number | undefined> = [];
    const spy: EngineLike = {
      generate: (request, onIds, signal) => {
        seen.push(request.sampling?.temperature);
        return engine.generate(request, onIds, signal);
      },
    };
    const micro = await createNodeEngine().load('micro-llama');
    expect(micro.sampling).toEqual({ temperature: 0 });
    const make = (info: LoadedModelInfo) =>
      new ChatSession({
        engine: spy,
        tokenizer: () => tokenizer,
        model: () => info,
        tools: () => [],
        settings: () => ({ sampling: { temperature: 0.9 }, maxSteps: 1, maxTokensPerStep: 2 }),
        confirm: async () => 'once',
      });
    await make(model).send('a');
    await make({ ...model, sampling: micro.sampling }).send('b');
    expect(seen).toEqual([0.9, 0]);
  });
});

describe('ChatSession context policy', () => {
  function small(policy: 'rolling' | 'stop') {
    const forcing = withScriptedSteps(engine);
    const s = new ChatSession({
      engine: forcing,
      tokenizer: () => tokenizer,
      model: () => ({ ...model, contextWindow: 400 }),
      tools: () => [weather],
      settings: () => ({ sampling: { temperature: 0 }, maxSteps: 4, maxTokensPerStep: 64, contextPolicy: policy }),
      confirm: async () => 'always',
    });
    const events: SessionEvent[] = [];
    s.on((e) => events.push(e));
    const ask = async (city: string) => {
      forcing.forceNextRun([`{"name": "get_weather", "parameters": {"city": "${city}"}}<|eot_id|>`, `Sunny in ${city}, as the forecast said.<|eot_id|>`].map((x) => scriptIds(x, tokenizer)));
      await s.send(`Weather in ${city}?`);
    };
    return { s, events, ask };
  }
  const CITIES = ['Paris', 'Oslo', 'Rome', 'Lima', 'Cairo', 'Tokyo', 'Quito', 'Perth'];

  it('rolling: every turn is answered and kept; context() names what is out and stays inside the window', async () => {
    const { s, events, ask } = small('rolling');
    for (const city of CITIES) await ask(city);
    expect(ends(events).map((e) => [e.reason, e.kept])).toEqual(CITIES.map(() => ['done', true]));
    expect(s.transcript).toHaveLength(CITIES.length * 4);
    const context = s.context()!;
    expect(context.dropped.from).toBe(0);
    expect(context.dropped.to % 4).toBe(0); // whole turns
    expect(context.dropped.to).toBeGreaterThan(0);
    expect(context.tokens).toBeLessThanOrEqual(400);
    const drops = events.flatMap((e) => (e.type === 'agent' && e.event.type === 'context-dropped' ? [e.event] : []));
    expect(drops.length).toBeGreaterThan(0);
    expect(drops.at(-1)!.dropped).toEqual(context.dropped);
  });

  it('stop: the turn that would not fit is not kept and says why (context_overflow)', async () => {
    const { s, events, ask } = small('stop');
    for (const city of CITIES) await ask(city);
    const failed = ends(events).find((e) => !e.kept)!;
    expect(failed).toMatchObject({ reason: 'error', error: { code: 'context_overflow', message: expect.stringContaining('the context policy is "stop"') } });
    expect(s.context()!.dropped).toEqual({ from: 0, to: 0 });
  });
});
