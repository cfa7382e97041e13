/**
 * The webllm backend against a fake MLCEngine (no GPU here): how our sampler's choice rides through
 * web-llm's own sampler, what happens without a KV rollback, the forced-token check, the error
 * mapping, the model record and the adapter checks. The fake runs the fake model of the conformance
 * suite, so its tokens can be compared with the fake logits backend's.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as WebLlm from '@mlc-ai/web-llm';
import { EngineError } from '../../src/engine/errors';
import { MODELS } from '../../src/engine/models';
import type { ModelEntry, WebLlmEntry } from '../../src/engine/model-list';
import { FakeLogitsBackend, fakeLogits } from '../../tests/fakes/fake-backends';
import { Engine } from '../engine';
import type { LogitsBackend } from './backend';
import { createWebLlmBackend, mapWebLlmError, webLlmModelRecord, type MlcEngineLike, type WebLlmRuntime } from './webllm-backend';

const FOUND = MODELS.find((m) => m.id === 'Llama-3.1-8B-Instruct-q4f16_1-MLC');
if (FOUND?.backend !== 'webllm') throw new Error('models.json has no web-llm Llama 3.1 8B q4f16');
const ENTRY: WebLlmEntry = FOUND;
const CONFIG = { modelsBaseUrl: 'https://app.example/models/', wasmBaseUrl: 'https://app.example/ort/' };

/** web-llm as far as this backend sees it: a KV cache it appends every forward to, and its own sampler. */
class FakeMlcEngine implements MlcEngineLike {
  kv: number[] = [];
  resets = 0;
  unloaded = false;
  /** Returns this token instead of what the processor forced (a web-llm that ignores our logits). */
  misbehave: number | null = null;
  reloadError: Error | null = null;
  private readonly processor: WebLlm.LogitProcessor;

  constructor(readonly config: WebLlm.MLCEngineConfig) {
    this.processor = config.logitProcessorRegistry!.values().next().value!;
  }

  async reload(): Promise<void> {
    if (this.reloadError) throw this.reloadError;
  }

  async forwardTokensAndSample(ids: number[]): Promise<number> {
    this.kv.push(...ids);
    const logits = this.processor.processLogits(fakeLogits(this.kv));
    // Its own sampler at temperature 1 over the forced logits: everything but one id has probability 0.
    let best = 0;
    for (let i = 1; i < logits.length; i++) if (logits[i]! > logits[best]!) best = i;
    return this.misbehave ?? best;
  }

  async resetChat(): Promise<void> {
    this.resets++;
    this.kv = [];
  }

  async unload(): Promise<void> {
    this.unloaded = true;
  }
}

function runtime(options: { features?: string[]; adapter?: boolean; setup?: (e: FakeMlcEngine) => void } = {}): WebLlmRuntime & { engine: () => FakeMlcEngine } {
  let created: FakeMlcEngine | null = null;
  return {
    requestAdapter: async () => (options.adapter === false ? null : { features: new Set(options.features ?? ['shader-f16']) }),
    createEngine: async (config) => {
      created = new FakeMlcEngine(config);
      options.setup?.(created);
      return created;
    },
    engine: () => created!,
  };
}

const load = (rt: WebLlmRuntime, signal = new AbortController().signal, entry: ModelEntry = ENTRY) =>
  createWebLlmBackend({ entry, options: {}, onProgress: () => {}, signal }, CONFIG, rt);

async function engineOn(backend: LogitsBackend): Promise<Engine> {
  const engine = new Engine({ models: MODELS, createBackend: async () => backend, capabilities: async () => ({ webgpu: true, shaderF16: true, adapter: null, limits: null }) });
  await engine.load(ENTRY.id);
  return engine;
}

afterEach(() => vi.unstubAllGlobals());

describe('webllm backend on a fake MLCEngine', () => {
  vi.stubGlobal('fetch', async () => new Response('', { status: 404 }));

  it('our sampler chooses every token: the tokens are those of the same model behind a plain logits backend', async () => {
    const rt = runtime();
    const backend = await load(rt);
    expect(backend.truncate).toBeUndefined();
    const prompt = [128000, 9906, 1917, 374];
    const request = { tokens: prompt, maxTokens: 6, sampling: { temperature: 0 }, logitsProcessors: [{ type: 'ban' as const, tokens: [128001, 128008, 128009] }] };
    const viaWebLlm = await (await engineOn(backend)).generate(request);
    const plain = await (await engineOn(new FakeLogitsBackend())).generate(request);
    expect(viaWebLlm.tokens).toEqual(plain.tokens);
    // web-llm's cache holds what was fed: the prompt and every emitted token but the last.
    expect(rt.engine().kv).toEqual([...prompt, ...viaWebLlm.tokens.slice(0, -1)]);
  });

  it('without a rollback in its API, a divergent prompt resets the chat and prefills everything', async () => {
    const rt = runtime();
    const engine = await engineOn(await load(rt));
    const a = [128000, 9906, 1917, 374, 555];
    await engine.generate({ tokens: a, maxTokens: 2, sampling: { temperature: 0 } });
    const b = [...a.slice(0, 3), 777, 778];
    const r = await engine.generate({ tokens: b, maxTokens: 2, sampling: { temperature: 0 } });
    expect(rt.engine().resets).toBe(1);
    expect(r.stats).toMatchObject({ reusedTokens: 0, prefilledTokens: b.length });
    expect(rt.engine().kv.slice(0, b.length)).toEqual(b);
  });

  it('a web-llm that samples something other than the forced token is an internal error, and the engine recovers', async () => {
    const rt = runtime();
    const engine = await engineOn(await load(rt));
    rt.engine().misbehave = 42;
    await expect(engine.generate({ tokens: [128000, 9906], maxTokens: 2 })).rejects.toMatchObject({ code: 'internal', message: expect.stringMatching(/web-llm sampled 42 where \d+ was forced/) });
    rt.engine().misbehave = null;
    const r = await engine.generate({ tokens: [128000, 9906], maxTokens: 2, sampling: { temperature: 0 } });
    expect(r.stats.reusedTokens).toBe(0);
    expect(rt.engine().resets).toBeGreaterThan(0);
  });

  it('refuses a browser without WebGPU and a GPU without shader-f16 for f16 weights, in plain words', async () => {
    await expect(load(runtime({ adapter: false }))).rejects.toMatchObject({ code: 'webgpu_unavailable', message: expect.stringMatching(/WebGPU is not available/) });
    await expect(load(runtime({ features: [] }))).rejects.toMatchObject({ code: 'shader_f16_unsupported', message: expect.stringMatching(/q4f32/) });
    const f32 = MODELS.find((m) => m.id === 'Llama-3.1-8B-Instruct-q4f32_1-MLC')!;
    await expect(load(runtime({ features: [] }), undefined, f32)).resolves.toMatchObject({ kind: 'logits', device: 'webgpu' });
  });

  it('a load error from web-llm is mapped to our codes; an aborted load unloads and says so', async () => {
    const oom = Object.assign(new Error('Buffer allocation exceeds limit'), { name: 'Error' });
    await expect(load(runtime({ setup: (e) => (e.reloadError = oom) }))).rejects.toMatchObject({ code: 'insufficient_memory' });
    const controller = new AbortController();
    const rt = runtime({ setup: () => controller.abort() });
    await expect(load(rt, controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('mapWebLlmError', () => {
  const cases: Record<string, { error: unknown; code: string }> = {
    'device lost': { error: Object.assign(new Error('lost'), { name: 'DeviceLostError' }), code: 'device_lost' },
    'model not loaded (after a device loss)': { error: Object.assign(new Error('x'), { name: 'ModelNotLoadedError' }), code: 'device_lost' },
    'no WebGPU': { error: Object.assign(new Error('x'), { name: 'WebGPUNotAvailableError' }), code: 'webgpu_unavailable' },
    'no shader-f16': { error: Object.assign(new Error('x'), { name: 'ShaderF16SupportError' }), code: 'shader_f16_unsupported' },
    'a missing feature': { error: Object.assign(new Error('x'), { name: 'FeatureSupportError' }), code: 'shader_f16_unsupported' },
    'out of memory by message': { error: new Error('Out of memory while allocating'), code: 'insufficient_memory' },
    'anything else: the fallback': { error: new Error('shader compile failed'), code: 'load_failed' },
    'a thrown string': { error: 'weird', code: 'load_failed' },
  };
  for (const [name, { error, code }] of Object.entries(cases)) {
    it(name, () => {
      const mapped = mapWebLlmError(error, 'load_failed');
      expect(mapped).toBeInstanceOf(EngineError);
      expect((mapped as EngineError).code).toBe(code);
    });
  }

  it('keeps our own errors and aborts as they are', () => {
    const ours = new EngineError('context_overflow', 'x');
    const abort = new DOMException('stop', 'AbortError');
    expect(mapWebLlmError(ours, 'internal')).toBe(ours);
    expect(mapWebLlmError(abort, 'internal')).toBe(abort);
  });
});

describe('webLlmModelRecord', () => {
  it('uses the public URLs unless the weights are served from the models folder (the offline demo)', async () => {
    vi.stubGlobal('fetch', async () => new Response('<!doctype html>', { status: 200, headers: { 'content-type': 'text/html' } }));
    const remote = await webLlmModelRecord(ENTRY, CONFIG.modelsBaseUrl);
    expect(remote).toMatchObject({ model: ENTRY.modelUrl, model_lib: ENTRY.modelLib, model_id: ENTRY.id, overrides: { context_window_size: ENTRY.contextWindow } });
    vi.stubGlobal('fetch', async (url: string) => new Response('{}', { status: url.endsWith('mlc-chat-config.json') ? 200 : 404, headers: { 'content-type': 'application/json' } }));
    const local = await webLlmModelRecord(ENTRY, CONFIG.modelsBaseUrl);
    expect(local.model).toBe(`${CONFIG.modelsBaseUrl}${ENTRY.id}/resolve/main/`);
    expect(local.model_lib).toBe(`${CONFIG.modelsBaseUrl}${ENTRY.id}/${ENTRY.modelLib.split('/').pop()}`);
    expect(local.required_features).toEqual(['shader-f16']);
  });
});
