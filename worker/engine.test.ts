import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GenerateRequest, GenerateResult, SamplingParams } from '../src/engine/contract';
import { EngineError } from '../src/engine/errors';
import { renderIds } from '../src/format/render';
import { EOM, EOT, END_OF_TEXT, PYTHON_TAG } from '../src/format/special-tokens';
import { loadTokenizer } from '../src/format/tokenizer/load-node';
import type { Message } from '../src/format/types';
import { createNodeEngine } from './create-node-engine';
import type { Engine } from './engine';

const tokenizer = loadTokenizer();
/** Special ids other than the stops and the tag: a random model must not emit them into history. */
const NON_TEXT_SPECIALS = Array.from({ length: 256 }, (_, i) => 128000 + i).filter((id) => ![EOM, EOT, END_OF_TEXT, PYTHON_TAG].includes(id));

let engine: Engine;
beforeAll(async () => {
  engine = createNodeEngine();
  await engine.load('tiny-llama');
});
afterAll(() => engine.unload());

function request(tokens: number[], sampling: SamplingParams, maxTokens = 6): GenerateRequest {
  return { tokens, sampling, maxTokens, logitsProcessors: [{ type: 'ban', tokens: [...NON_TEXT_SPECIALS, EOM, EOT, END_OF_TEXT] }] };
}

/** A chat extended three times; each assistant turn is what the model emitted (ids kept). */
async function extendThreeTimes(e: Engine, sampling: SamplingParams, freshEachStep: boolean) {
  const messages: Message[] = [{ role: 'user', content: 'Tell me about the sea.' }];
  const steps: Array<{ prompt: number[]; cachedBefore: number[]; result: GenerateResult }> = [];
  for (const followUp of ['And the mountains?', 'Why?', 'Thanks. One more thing:']) {
    const prompt = renderIds({ messages, date: '11 August 2026' }, tokenizer);
    if (freshEachStep) {
      await e.unload();
      await e.load('tiny-llama');
    }
    const cachedBefore = e.cachedIds();
    const result = await e.generate(request(prompt, sampling));
    steps.push({ prompt, cachedBefore, result });
    messages.push({ role: 'assistant', content: '', raw: tokenizer.decode(result.tokens), ids: result.tokens, stop: 'eot' }, { role: 'user', content: followUp });
  }
  return steps;
}

describe('prefix cache (tiny model, onnxruntime-node)', () => {
  for (const [name, sampling] of [
    ['greedy', { temperature: 0 }],
    ['sampling with a fixed seed', { temperature: 0.9, topP: 0.95, seed: 1234 }],
  ] as const) {
    it(`${name}: reusing the cache and re-prefilling everything give identical token streams`, async () => {
      const reused = await extendThreeTimes(engine, sampling, false);
      const fresh = await extendThreeTimes(createNodeEngine(), sampling, true);
      expect(reused.map((s) => s.result.tokens)).toEqual(fresh.map((s) => s.result.tokens));
      expect(reused.map((s) => s.prompt)).toEqual(fresh.map((s) => s.prompt));
      reused.forEach(({ prompt, cachedBefore, result }, k) => {
        if (k === 0) return;
        const previous = reused[k - 1]!;
        // The cache holds the previous prompt and every emitted token but the last (sampled, never fed).
        expect(cachedBefore).toEqual([...previous.prompt, ...previous.result.tokens.slice(0, -1)]);
        expect(prompt.slice(0, cachedBefore.length)).toEqual(cachedBefore);
        expect(result.stats.reusedTokens).toBe(cachedBefore.length);
        expect(result.stats.prefilledTokens).toBe(prompt.length - cachedBefore.length);
        expect(result.stats.prefilledTokens).toBe(prompt.length - previous.prompt.length - previous.result.tokens.length + 1);
      });
      fresh.forEach(({ prompt, result }) => {
        expect(result.stats.reusedTokens).toBe(0);
        expect(result.stats.prefilledTokens).toBe(prompt.length);
      });
    });
  }

  it('after a divergence, keeps the longest common prefix and prefills only the rest, with the tokens of a full prefill', async () => {
    const a = renderIds({ messages: [{ role: 'user', content: 'First conversation.' }] }, tokenizer);
    const b = renderIds({ messages: [{ role: 'user', content: 'A different one.' }] }, tokenizer);
    let common = 0;
    while (a[common] === b[common]) common++;
    expect(common).toBeGreaterThan(3); // <|begin_of_text|> and the user header
    await engine.generate(request(a, { temperature: 0 }));
    const r = await engine.generate(request(b, { temperature: 0 }));
    expect(r.stats).toMatchObject({ reusedTokens: common, prefilledTokens: b.length - common, promptTokens: b.length });
    expect(engine.cachedIds()).toEqual([...b, ...r.tokens.slice(0, -1)]);
    const fresh = createNodeEngine();
    await fresh.load('tiny-llama');
    expect((await fresh.generate(request(b, { temperature: 0 }))).tokens).toEqual(r.tokens);
    // The same prompt again: everything but its last id is reused (one id is fed for its logits).
    const again = await engine.generate(request(b, { temperature: 0 }));
    expect(again.stats).toMatchObject({ reusedTokens: b.length - 1, prefilledTokens: 1 });
    expect(again.tokens).toEqual(r.tokens);
  });

  it('a forced turn ending in eot: the next prompt prefills exactly the appended ids, the terminator first', async () => {
    const prompt = renderIds({ messages: [{ role: 'user', content: 'Say hi.' }] }, tokenizer);
    const script = [...tokenizer.encode('Hi there!'), EOT];
    const first = await engine.generate({ tokens: prompt, sampling: { temperature: 0.6 }, logitsProcessors: [{ type: 'force', tokens: script }] });
    expect(first.stop).toBe('eot');
    expect(first.tokens).toEqual(script.slice(0, -1));
    expect(first.stopId).toBe(EOT);
    const next = renderIds(
      { messages: [{ role: 'user', content: 'Say hi.' }, { role: 'assistant', content: '', raw: tokenizer.decode(first.tokens), ids: first.tokens, stop: 'eot' }, { role: 'user', content: 'Again' }] },
      tokenizer,
    );
    expect(engine.cachedIds()).toEqual([...prompt, ...first.tokens]);
    const appended = next.slice(prompt.length + first.tokens.length);
    expect(appended[0]).toBe(EOT);
    const r = await engine.generate(request(next, { temperature: 0 }, 2));
    expect(r.stats.prefilledTokens).toBe(appended.length);
  });
});

describe('stops', () => {
  const prompt = () => renderIds({ messages: [{ role: 'user', content: 'Go.' }] }, tokenizer);
  for (const [terminator, stop] of [
    [EOM, 'eom'],
    [EOT, 'eot'],
    [END_OF_TEXT, 'end_of_text'],
  ] as const) {
    it(`a forced continuation ending in ${terminator} reports ${stop} and its id; the terminator is not in the tokens`, async () => {
      const body = [PYTHON_TAG, ...tokenizer.encode('brave_search.call(query="x")')];
      const r = await engine.generate({ tokens: prompt(), logitsProcessors: [{ type: 'force', tokens: [...body, terminator] }] });
      expect(r.stop).toBe(stop);
      expect(r.stopId).toBe(terminator);
      expect(r.tokens).toEqual(body);
      expect(tokenizer.decode(r.tokens)).toBe('<|python_tag|>brave_search.call(query="x")');
      expect(r.stats.decodedTokens).toBe(body.length + 1);
    });
  }

  it('maxTokens ends with stop "length"', async () => {
    const r = await engine.generate(request(prompt(), { temperature: 0 }, 3));
    expect(r.stop).toBe('length');
    expect(r.tokens).toHaveLength(3);
  });
});

describe('streaming and abort', () => {
  it('streams id batches that add up to the result', async () => {
    const batches: number[][] = [];
    const r = await engine.generate(request(renderIds({ messages: [{ role: 'user', content: 'Stream.' }] }, tokenizer), { temperature: 0 }, 20), (b) => batches.push(b));
    expect(batches.length).toBeGreaterThan(1);
    expect(batches.flat()).toEqual(r.tokens);
  });

  it('an abort mid-generation returns stop "abort"; the next generate works and reuses the cache', async () => {
    const prompt = renderIds({ messages: [{ role: 'user', content: 'Abort me.' }] }, tokenizer);
    const controller = new AbortController();
    const aborted = await engine.generate(request(prompt, { temperature: 0 }, 200), () => controller.abort(), controller.signal);
    expect(aborted.stop).toBe('abort');
    expect(aborted.tokens.length).toBeGreaterThan(0);
    expect(aborted.tokens.length).toBeLessThan(200);
    // Continue the same prompt plus what was kept: only the unfed last token and the new ids are prefilled.
    const cached = engine.cachedIds();
    expect(cached).toEqual([...prompt, ...aborted.tokens.slice(0, -1)]);
    const longer = [...prompt, ...aborted.tokens, ...tokenizer.encode(' more')];
    const r = await engine.generate(request(longer, { temperature: 0 }, 4));
    expect(r.stats.reusedTokens).toBe(cached.length);
    const fresh = createNodeEngine();
    await fresh.load('tiny-llama');
    expect((await fresh.generate(request(longer, { temperature: 0 }, 4))).tokens).toEqual(r.tokens);
  });

  it('an already aborted signal does no work', async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await engine.generate(request([128000, 9906], { temperature: 0 }), undefined, controller.signal);
    expect(r).toMatchObject({ stop: 'abort', tokens: [], stats: { prefilledTokens: 0, decodedTokens: 0 } });
  });
});

describe('errors are typed and leave the engine usable', () => {
  const expectEngineError = async (p: Promise<unknown>, code: string) => {
    const e = await p.catch((err: unknown) => err);
    expect(e).toBeInstanceOf(EngineError);
    expect((e as EngineError).code).toBe(code);
  };

  it('context overflow is refused before any work', async () => {
    const before = engine.cachedIds();
    await expectEngineError(engine.generate({ tokens: new Array(4096).fill(9906) }), 'context_overflow');
    expect(engine.cachedIds()).toEqual(before);
    const r = await engine.generate(request([128000, 9906], { temperature: 0 }, 2));
    expect(r.tokens).toHaveLength(2);
  });

  it('maxTokens is clamped to the room left in the context window', async () => {
    const r = await engine.generate(request(new Array(4094).fill(9906), { temperature: 0 }, 50));
    expect(r.stop).toBe('length');
    expect(r.tokens).toHaveLength(2);
  });

  it('bad ids, bad sampling, unknown model, nothing loaded', async () => {
    await expectEngineError(engine.generate({ tokens: [] }), 'invalid_request');
    await expectEngineError(engine.generate({ tokens: [128256] }), 'invalid_request');
    await expectEngineError(engine.generate({ tokens: [1.5] }), 'invalid_request');
    await expect(engine.generate({ tokens: [1], sampling: { topP: 0 } })).rejects.toThrow(/topP/);
    await expectEngineError(createNodeEngine().load('no-such-model'), 'unknown_model');
    await expectEngineError(createNodeEngine().generate({ tokens: [1] }), 'not_loaded');
    await expectEngineError(createNodeEngine().load('Llama-3.1-8B-Instruct-q4f16_1-MLC'), 'webgpu_unavailable');
    expect((await engine.generate(request([128000, 9906], { temperature: 0 }, 1))).tokens).toHaveLength(1);
  });

  it("a loaded model's info carries its own sampling defaults (the micro model is greedy)", async () => {
    expect(engine.model?.sampling).toEqual({});
    const micro = createNodeEngine();
    expect((await micro.load('micro-llama')).sampling).toEqual({ temperature: 0 });
    await micro.unload();
  });
});

describe('chunked prefill', () => {
  it('a prompt longer than the backend\'s prefill chunk is fed in chunks and gives the tokens of one prefill; an abort between chunks keeps the cache consistent', async () => {
    const models = (await import('../src/engine/models')).MODELS;
    const { createOnnxBackend } = await import('./backends/onnx-backend');
    const { Engine } = await import('./engine');
    const { join } = await import('node:path');
    const steps: number[] = [];
    let onStep: (() => void) | null = null;
    const withChunk = (chunk: number | undefined) =>
      new Engine({
        models,
        capabilities: async () => ({ webgpu: false, shaderF16: false, adapter: null, limits: null }),
        createBackend: async (ctx) => {
          const real = await createOnnxBackend(ctx, { localModelPath: `${join(import.meta.dirname, '../models')}/`, allowRemote: false });
          if (real.kind !== 'logits') throw new Error('expected a logits backend');
          return Object.assign(Object.create(real) as typeof real, {
            prefillChunk: chunk,
            step: async (ids: readonly number[], pick: (l: Float32Array) => number) => {
              steps.push(ids.length);
              const next = await real.step(ids, pick);
              onStep?.();
              return next;
            },
          });
        },
      });
    const chunked = withChunk(7);
    const whole = withChunk(undefined);
    await Promise.all([chunked.load('tiny-llama'), whole.load('tiny-llama')]);
    const prompt = renderIds({ messages: [{ role: 'user', content: 'A prompt long enough to be cut into several prefill chunks, please.' }] }, tokenizer);
    const a = await chunked.generate(request(prompt, { temperature: 0 }, 4));
    expect(steps.slice(0, Math.ceil(prompt.length / 7))).toEqual([...Array(Math.floor((prompt.length - 1) / 7)).fill(7), prompt.length - 7 * Math.floor((prompt.length - 1) / 7)]);
    expect(a.stats).toMatchObject({ prefilledTokens: prompt.length, reusedTokens: 0 });
    const b = await whole.generate(request(prompt, { temperature: 0 }, 4));
    expect(a.tokens).toEqual(b.tokens);
    // An abort while prefilling (after the first chunk): no token, and the cache holds what was fed.
    const controller = new AbortController();
    onStep = () => controller.abort();
    const other = [...prompt.slice(0, 3), ...tokenizer.encode(' and now a different, longer continuation of this prompt')];
    const aborted = await chunked.generate(request(other, { temperature: 0 }, 4), undefined, controller.signal);
    onStep = null;
    expect(aborted).toMatchObject({ stop: 'abort', tokens: [], stats: { decodedTokens: 0 } });
    expect(chunked.cachedIds()).toEqual(other.slice(0, 3 + 7));
    const resumed = await chunked.generate(request(other, { temperature: 0 }, 4));
    expect(resumed.tokens).toEqual((await whole.generate(request(other, { temperature: 0 }, 4))).tokens);
  });
});

describe('only text, the tag and terminators are ever sampled', () => {
  it('a model pushed toward a header token never emits it: every emitted id replays in history', async () => {
    // Bias every structural special id up hugely; the structural ban must still win.
    const logitBias = Object.fromEntries(NON_TEXT_SPECIALS.map((id) => [id, 1000]));
    const r = await engine.generate({
      tokens: renderIds({ messages: [{ role: 'user', content: 'Go.' }] }, tokenizer),
      maxTokens: 20,
      sampling: { temperature: 1, seed: 3, logitBias },
    });
    expect(r.tokens.filter((id) => NON_TEXT_SPECIALS.includes(id))).toEqual([]);
    expect(r.tokens.length).toBeGreaterThan(0);
  });
});
