/**
 * The engine's slots over the fake logits backend (its next token depends on every cached id, so a slot
 * holding the wrong ids answers wrongly): which slot a request takes, eviction, salts, generations on
 * different slots advancing in turn, and failures and aborts that stay with their own request.
 */
import { describe, expect, it } from 'vitest';
import type { GenerateRequest, GenerateResult } from '../src/engine/contract';
import { EngineError } from '../src/engine/errors';
import { MODELS } from '../src/engine/models';
import { FakeLogitsBackend, FakeSamplingBackend } from '../tests/fakes/fake-backends';
import { Engine } from './engine';

const MODEL = 'tiny-llama';

async function engineWith(slots: number, sequences = slots, kvCacheBytes?: number): Promise<{ engine: Engine; backend: FakeLogitsBackend }> {
  const backend = new FakeLogitsBackend({ sequences, kvBytesPerToken: 1000 });
  const engine = new Engine({ models: MODELS, capabilities: async () => ({ webgpu: false, shaderF16: false, adapter: null, limits: null }), createBackend: async () => backend });
  await engine.load(MODEL, { slots, ...(kvCacheBytes !== undefined ? { kvCacheBytes } : {}) });
  return { engine, backend };
}

/** A prompt of `n` ids from `from` on, after <|begin_of_text|>. */
const prompt = (from: number, n = 20): number[] => [128000, ...Array.from({ length: n }, (_, i) => from + i)];
const greedy = (tokens: number[], maxTokens = 4, cacheSalt?: string): GenerateRequest => ({ tokens, maxTokens, sampling: { temperature: 0 }, ...(cacheSalt ? { cacheSalt } : {}) });
/** The prompt of the next turn: the previous prompt, what was emitted, and a few new ids. */
const extend = (previous: number[], result: GenerateResult, from: number): number[] => [...previous, ...result.tokens, from, from + 1, from + 2];

/** What a fresh one-slot engine answers. */
async function alone(request: GenerateRequest): Promise<number[]> {
  const { engine } = await engineWith(1);
  return (await engine.generate(request)).tokens;
}

const codeOf = async (p: Promise<unknown>): Promise<string> => {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(EngineError);
  return (e as EngineError).code;
};

describe('slot choice', () => {
  it('each conversation goes back to the slot that holds it, with the answer it gets alone', async () => {
    const { engine, backend } = await engineWith(3);
    const a1 = prompt(1000);
    const b1 = prompt(2000);
    const ra1 = await engine.generate(greedy(a1));
    const rb1 = await engine.generate(greedy(b1));
    expect(backend.opened).toHaveLength(1);
    const a2 = extend(a1, ra1, 3000);
    const b2 = extend(b1, rb1, 4000);
    const ra2 = await engine.generate(greedy(a2));
    const rb2 = await engine.generate(greedy(b2));
    expect(ra2.stats.reusedTokens).toBe(a1.length + ra1.tokens.length - 1);
    expect(rb2.stats.reusedTokens).toBe(b1.length + rb1.tokens.length - 1);
    expect(engine.cachedSlots()).toEqual([
      [...a2, ...ra2.tokens.slice(0, -1)],
      [...b2, ...rb2.tokens.slice(0, -1)],
    ]);
    expect(ra2.tokens).toEqual(await alone(greedy(a2)));
    expect(rb2.tokens).toEqual(await alone(greedy(b2)));
  });

  it('a new conversation that forks from a slot, even sharing most of its prompt (a system prompt), takes an empty slot rather than roll another back', async () => {
    const { engine } = await engineWith(2);
    const a = prompt(1000);
    const ra = await engine.generate(greedy(a));
    const b = [...a.slice(0, 15), ...prompt(5000, 4).slice(1)];
    const rb = await engine.generate(greedy(b));
    expect(rb.stats.reusedTokens).toBe(0);
    expect(engine.cachedSlots()[0]).toEqual([...a, ...ra.tokens.slice(0, -1)]);
  });

  it('the same prompt again (a regenerated answer, longer than the prompt) rolls back only the answer on its own slot', async () => {
    const { engine } = await engineWith(2);
    const a = prompt(1000);
    const first = await engine.generate(greedy(a, 40));
    const again = await engine.generate(greedy(a, 40));
    expect(again.stats.reusedTokens).toBe(a.length - 1);
    expect(again.tokens).toEqual(first.tokens);
    expect(engine.cachedSlots()).toHaveLength(1);
  });

  it('with every slot full, an unrelated prompt evicts the least recently used slot', async () => {
    const { engine } = await engineWith(2);
    const [a, b, c] = [prompt(1000), prompt(2000), prompt(3000)];
    await engine.generate(greedy(a));
    const rb = await engine.generate(greedy(b));
    const rc = await engine.generate(greedy(c));
    expect(rc.stats.reusedTokens).toBe(1); // <|begin_of_text|>, shared with what it evicted
    expect(engine.cachedSlots()).toEqual([
      [...c, ...rc.tokens.slice(0, -1)],
      [...b, ...rb.tokens.slice(0, -1)],
    ]);
    // B's slot was kept: its next turn reuses it whole.
    const b2 = extend(b, rb, 4000);
    expect((await engine.generate(greedy(b2))).stats.reusedTokens).toBe(b.length + rb.tokens.length - 1);
  });

  it('different salts never share: the same prompt under another salt takes another slot and reuses nothing', async () => {
    const { engine } = await engineWith(2);
    const a = prompt(1000);
    const x = await engine.generate(greedy(a, 4, 'client-x'));
    const y = await engine.generate(greedy(a, 4, 'client-y'));
    expect(y.stats.reusedTokens).toBe(0);
    expect(y.tokens).toEqual(x.tokens);
    expect(engine.cachedSlots()).toHaveLength(2);
    expect((await engine.generate(greedy(a, 4, 'client-x'))).stats.reusedTokens).toBe(a.length - 1);
    // A third salt with both slots full: it evicts one and still reuses nothing.
    expect((await engine.generate(greedy(a, 4, 'client-z'))).stats.reusedTokens).toBe(0);
  });

  it('slots are a whole number from 1 to 64; a backend that holds fewer gives fewer', async () => {
    for (const slots of [0, 65, 1.5, Number.NaN]) expect(await codeOf(engineWith(slots, 2))).toBe('invalid_request');
    const { engine } = await engineWith(4, 2);
    expect(engine.slotUsage()).toEqual({ slots: 2, busy: 0 });
    const single = new Engine({ models: MODELS, capabilities: async () => ({ webgpu: false, shaderF16: false, adapter: null, limits: null }), createBackend: async () => new FakeLogitsBackend() });
    await single.load(MODEL, { slots: 8 });
    expect(single.slotUsage()).toEqual({ slots: 1, busy: 0 });
  });
});

describe('scheduling', () => {
  it('a short request finishes while a long one on another slot is still generating; with one slot it waits', async () => {
    for (const [slots, order] of [
      [2, ['short', 'long']],
      [1, ['long', 'short']],
    ] as const) {
      const { engine } = await engineWith(slots);
      const finished: string[] = [];
      const long = engine.generate(greedy(prompt(1000), 300)).then((r) => (finished.push('long'), r));
      const short = engine.generate(greedy(prompt(2000), 3)).then((r) => (finished.push('short'), r));
      const [rl, rs] = await Promise.all([long, short]);
      expect(finished).toEqual(order);
      expect(rl.tokens).toHaveLength(300);
      expect(rl.tokens).toEqual(await alone(greedy(prompt(1000), 300)));
      expect(rs.tokens).toEqual(await alone(greedy(prompt(2000), 3)));
    }
  });

  it('an engine server gets every request at once: a short one finishes while a long one streams', async () => {
    const engine = new Engine({ models: MODELS, capabilities: async () => ({ webgpu: false, shaderF16: false, adapter: null, limits: null }), createBackend: async () => new FakeSamplingBackend() });
    await engine.load(MODEL, { slots: 1 });
    expect(engine.slotUsage()).toEqual({ slots: null, busy: 0 });
    const finished: string[] = [];
    const long = engine.generate(greedy(prompt(1000), 200)).then(() => finished.push('long'));
    const short = engine.generate(greedy(prompt(2000), 3)).then(() => finished.push('short'));
    await Promise.all([long, short]);
    expect(finished).toEqual(['short', 'long']);
  });

  it('more requests than slots wait in order; one aborted while waiting returns an abort and takes no slot', async () => {
    const { engine } = await engineWith(1);
    const finished: string[] = [];
    const long = engine.generate(greedy(prompt(1000), 50)).then(() => finished.push('long'));
    const controller = new AbortController();
    const waiting = engine.generate(greedy(prompt(2000), 3), undefined, controller.signal).then((r) => (finished.push('aborted'), r));
    const later = engine.generate(greedy(prompt(3000), 3)).then(() => finished.push('later'));
    controller.abort();
    const aborted = await waiting;
    await Promise.all([long, later]);
    expect(aborted).toMatchObject({ stop: 'abort', tokens: [], stats: { decodedTokens: 0 } });
    expect(finished).toEqual(['aborted', 'long', 'later']);
  });

  it('unload waits for the generations running; a generate asked after it finds nothing loaded', async () => {
    const { engine } = await engineWith(2);
    const order: string[] = [];
    const running = engine.generate(greedy(prompt(1000), 40)).then((r) => (order.push('generate'), r));
    const unloading = engine.unload().then(() => order.push('unload'));
    const after = codeOf(engine.generate(greedy(prompt(2000))));
    expect((await running).tokens).toHaveLength(40);
    await unloading;
    expect(await after).toBe('not_loaded');
    expect(order).toEqual(['generate', 'unload']);
  });
});

describe('failures and aborts stay with their request', () => {
  it("a slot that runs out of memory is a clear error; the other slot's generation and cache are untouched", async () => {
    const { engine, backend } = await engineWith(2);
    const a = prompt(1000);
    const b = prompt(2000);
    const ra = await engine.generate(greedy(a));
    await engine.generate(greedy(b));
    const a2 = extend(a, ra, 3000);
    const long = engine.generate(greedy(a2, 100));
    backend.opened[0]!.failNext(new Error('Failed to allocate memory for requested buffer'));
    const failed = engine.generate(greedy(prompt(2000)));
    const error = await failed.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ code: 'insufficient_memory', message: expect.stringContaining('KV cache 2 ran out of memory') });
    const rl = await long;
    expect(rl.tokens).toEqual(await alone(greedy(a2, 100)));
    expect(rl.stats.reusedTokens).toBe(a.length + ra.tokens.length - 1);
    expect(engine.cachedSlots()[1]).toEqual([]);
    // The failed slot was emptied and works again.
    expect((await engine.generate(greedy(b))).tokens).toEqual(await alone(greedy(b)));
  });

  it("past the slots' memory bound an idle slot is emptied; a generation that still does not fit fails alone", async () => {
    for (const bytes of [0, -1, 1.5]) expect(await codeOf(engineWith(2, 2, bytes))).toBe('invalid_request');
    // 60 positions of 1,000 bytes.
    const { engine } = await engineWith(2, 2, 60_000);
    const a = prompt(1000);
    const big = prompt(5000, 45);
    let started!: () => void;
    const decoding = new Promise<void>((resolve) => (started = resolve));
    const long = engine.generate(greedy(a, 30), () => started());
    await decoding; // A's slot holds its prompt: the big prompt cannot fit beside it
    const refused = engine.generate(greedy(big));
    const error = await refused.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'insufficient_memory', message: expect.stringContaining('KV cache 2 cannot take 46 more positions') });
    const rl = await long;
    expect(rl.tokens).toEqual(await alone(greedy(a, 30)));
    expect(engine.cachedSlots()).toEqual([[...a, ...rl.tokens.slice(0, -1)], []]);
    // With A's slot idle, it is emptied to make room.
    const rb = await engine.generate(greedy(big));
    expect(rb.tokens).toEqual(await alone(greedy(big)));
    expect(engine.cachedSlots()[0]).toEqual([]);
  });

  it('a lost device unloads the model for every slot: the generation on the other slot fails too', async () => {
    const { engine, backend } = await engineWith(2);
    await engine.generate(greedy(prompt(1000)));
    await engine.generate(greedy(prompt(2000)));
    const other = codeOf(engine.generate(greedy(prompt(1000), 200)));
    backend.opened[0]!.failNext(new EngineError('device_lost', 'the GPU device was lost'));
    expect(await codeOf(engine.generate(greedy(prompt(2000))))).toBe('device_lost');
    expect(await other).toBe('device_lost');
    expect(engine.model).toBeNull();
    expect(backend.opened[0]!.closed).toBe(true);
  });

  it('an abort stops its own generation only; its slot stays consistent for the next turn', async () => {
    const { engine } = await engineWith(2);
    const a = prompt(1000);
    const b = prompt(2000);
    const controller = new AbortController();
    let seen = 0;
    const long = engine.generate(greedy(a, 200));
    const aborted = await engine.generate(greedy(b, 200), (ids) => (seen += ids.length) >= 5 && controller.abort(), controller.signal);
    expect(aborted.stop).toBe('abort');
    expect(aborted.tokens.length).toBeLessThan(200);
    const rl = await long;
    expect(rl.stop).toBe('length');
    expect(rl.tokens).toEqual(await alone(greedy(a, 200)));
    expect(engine.cachedSlots()[1]).toEqual([...b, ...aborted.tokens.slice(0, -1)]);
    const b2 = [...b, ...aborted.tokens, 4000];
    const next = await engine.generate(greedy(b2));
    expect(next.stats.reusedTokens).toBe(b.length + aborted.tokens.length - 1);
    expect(next.tokens).toEqual(await alone(greedy(b2)));
  });
});

describe('slots on onnxruntime-node (tiny model)', () => {
  it('two conversations generated at once, each on its own past key/values, answer as alone and keep their caches', async () => {
    const { createNodeEngine } = await import('./create-node-engine');
    const engine = createNodeEngine();
    await engine.load(MODEL, { slots: 2 });
    const single = createNodeEngine();
    await single.load(MODEL);
    const a = prompt(1000, 30);
    const b = prompt(2000, 12);
    const [ra, rb] = await Promise.all([engine.generate(greedy(a, 12)), engine.generate(greedy(b, 12))]);
    expect(ra.tokens).toEqual((await single.generate(greedy(a, 12))).tokens);
    expect(rb.tokens).toEqual((await single.generate(greedy(b, 12))).tokens);
    const [a2, b2] = [extend(a, ra, 3000), extend(b, rb, 4000)];
    const [ra2, rb2] = await Promise.all([engine.generate(greedy(a2, 6)), engine.generate(greedy(b2, 6))]);
    expect([ra2.stats.reusedTokens, rb2.stats.reusedTokens]).toEqual([a.length + 11, b.length + 11]);
    expect(ra2.tokens).toEqual((await single.generate(greedy(a2, 6))).tokens);
    expect(rb2.tokens).toEqual((await single.generate(greedy(b2, 6))).tokens);
    await Promise.all([engine.unload(), single.unload()]);
  });

  it('the onnx backend says what a cached position costs: a bound too small for one prompt refuses it', async () => {
    const { createNodeEngine } = await import('./create-node-engine');
    const engine = createNodeEngine();
    await engine.load(MODEL, { slots: 2, kvCacheBytes: 1024 });
    expect(await codeOf(engine.generate(greedy(prompt(1000))))).toBe('insufficient_memory');
    expect(engine.cachedSlots()).toEqual([[]]);
    await engine.unload();
  });
});
