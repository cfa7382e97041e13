/**
 * Loading over a running model: the running one stays until the new one is ready, and stays when the
 * new one fails or is aborted; a load that runs out of memory beside it frees it and tries once more.
 */
import { describe, expect, it } from 'vitest';
import { abortError, EngineError } from '../src/engine/errors';
import { MODELS } from '../src/engine/models';
import type { BackendLoadContext } from './backends/backend';
import { FakeLogitsBackend } from '../tests/fakes/fake-backends';
import { Engine } from './engine';

class CountedBackend extends FakeLogitsBackend {
  disposed = false;
  override async dispose(): Promise<void> {
    this.disposed = true;
    await super.dispose();
  }
}

type Attempt = (ctx: BackendLoadContext) => Promise<CountedBackend>;

/** An engine whose successive loads run these attempts in order (the first loads the running model). */
function engineWith(...attempts: Attempt[]): { engine: Engine; tries: string[] } {
  const tries: string[] = [];
  const engine = new Engine({
    models: MODELS,
    capabilities: async () => ({ webgpu: false, shaderF16: false, adapter: null, limits: null }),
    createBackend: async (ctx) => {
      tries.push(ctx.entry.id);
      const next = attempts.shift();
      if (!next) throw new Error('no more attempts scripted');
      return next(ctx);
    },
  });
  return { engine, tries };
}

const ok = (backend = new CountedBackend()): Attempt => async () => backend;
const fails = (message: string): Attempt => async () => {
  throw new EngineError('load_failed', message);
};
const greedy = { tokens: [128000, 5, 6, 7], maxTokens: 2, sampling: { temperature: 0 } };

describe('loading over a running model', () => {
  it('a load that fails (unreachable host) keeps the running model, and it still answers', async () => {
    const running = new CountedBackend();
    const { engine } = engineWith(ok(running), fails('could not reach huggingface.co'));
    await engine.load('tiny-llama');
    await expect(engine.load('micro-llama')).rejects.toThrow(/could not reach/);
    expect(engine.model?.modelId).toBe('tiny-llama');
    expect(running.disposed).toBe(false);
    expect((await engine.generate(greedy)).tokens).toHaveLength(2);
  });

  it('an aborted load keeps the running model', async () => {
    const running = new CountedBackend();
    const controller = new AbortController();
    const { engine } = engineWith(ok(running), async () => {
      controller.abort();
      throw abortError('load aborted');
    });
    await engine.load('tiny-llama');
    await expect(engine.load('micro-llama', {}, undefined, controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(engine.model?.modelId).toBe('tiny-llama');
    expect(running.disposed).toBe(false);
  });

  it('a load that succeeds replaces the running model, which is disposed only then', async () => {
    const running = new CountedBackend();
    let disposedDuringLoad: boolean | null = null;
    const { engine } = engineWith(ok(running), async () => {
      disposedDuringLoad = running.disposed;
      return new CountedBackend();
    });
    await engine.load('tiny-llama');
    await engine.load('micro-llama');
    expect(disposedDuringLoad).toBe(false);
    expect(running.disposed).toBe(true);
    expect(engine.model?.modelId).toBe('micro-llama');
  });

  it('out of memory beside the running model: it is unloaded to make room and the load tried once more', async () => {
    const running = new CountedBackend();
    const { engine, tries } = engineWith(ok(running), fails('WebGPU: out of memory'), ok());
    await engine.load('tiny-llama');
    expect((await engine.load('micro-llama')).modelId).toBe('micro-llama');
    expect(tries).toEqual(['tiny-llama', 'micro-llama', 'micro-llama']);
    expect(running.disposed).toBe(true);
  });

  it('out of memory twice: the error stands and nothing is loaded (the engine says so)', async () => {
    const { engine } = engineWith(ok(), fails('out of memory'), fails('out of memory'));
    await engine.load('tiny-llama');
    await expect(engine.load('micro-llama')).rejects.toThrow(/out of memory/);
    expect(engine.model).toBeNull();
  });
});
