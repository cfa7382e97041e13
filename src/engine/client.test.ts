/**
 * EngineClient against a stand-in worker: a real comlink endpoint on a MessageChannel, plus the
 * `error` event a Worker fires when its script does not load.
 */
import { afterEach, expect, it } from 'vitest';
import { EngineClient } from './client';
import type { EngineApi } from './contract';
import { StandInWorker } from '../../tests/support/stand-in-worker';

const workers: StandInWorker[] = [];
afterEach(() => {
  for (const w of workers.splice(0)) w.close();
});

function clientOn(api: Partial<EngineApi> | null): { client: EngineClient; worker: StandInWorker } {
  const worker = new StandInWorker();
  workers.push(worker);
  if (api) worker.serve(api);
  return { client: new EngineClient(worker as unknown as Worker), worker };
}

it('a worker whose script never loaded: pending and later calls reject with worker_failed, and it is terminated', async () => {
  const { client, worker } = clientOn(null); // nothing answers, like a worker that never ran
  const pending = client.load('tiny-llama');
  const capabilities = client.capabilities();
  worker.failToLoad();
  await expect(pending).rejects.toMatchObject({ name: 'EngineError', code: 'worker_failed', message: expect.stringMatching(/could not start.*Content-Security-Policy/) });
  await expect(capabilities).rejects.toMatchObject({ code: 'worker_failed' });
  await expect(client.generate({ tokens: [1] })).rejects.toMatchObject({ code: 'worker_failed' });
  expect(worker.terminated).toBe(true);
});

const NO_GPU = { webgpu: false, shaderF16: false, adapter: null, limits: null };

it("a running worker's later error events do not end its calls", async () => {
  const { client, worker } = clientOn({ capabilities: async () => NO_GPU });
  expect(await client.capabilities()).toEqual(NO_GPU);
  worker.failToLoad(); // e.g. an uncaught error inside a worker that did start
  expect(await client.capabilities()).toEqual(NO_GPU);
  expect(worker.terminated).toBe(false);
});

it("the worker's own errors still arrive as themselves", async () => {
  const { client } = clientOn({ generate: async () => { throw new RangeError('token id out of range'); } });
  await expect(client.generate({ tokens: [1 << 30] })).rejects.toMatchObject({ name: 'EngineError', code: 'invalid_request', message: 'token id out of range' });
});

it('id batches stream through the callback, in order, before the result; nothing but ids crosses', async () => {
  const batches: number[][] = [];
  const { client } = clientOn({
    generate: async (request, onIds) => {
      await onIds?.([10, 11]);
      await onIds?.([12]);
      return { tokens: [10, 11, 12], stop: 'eot', stopId: 128009, stats: { promptTokens: request.tokens.length, reusedTokens: 0, prefilledTokens: 1, decodedTokens: 4, prefillMs: 0, decodeMs: 0 } };
    },
  });
  const result = await client.generate({ tokens: [5] }, (ids) => batches.push(ids));
  expect(batches).toEqual([[10, 11], [12]]);
  expect(result).toMatchObject({ tokens: [10, 11, 12], stop: 'eot', stopId: 128009 });
});

it('load brings the page tokenizer beside the model; a tokenizer that fails to load fails the load in plain words', async () => {
  const info = { modelId: 'tiny-llama', backend: 'onnx', contextWindow: 4096, toolCalling: true, device: 'cpu', sampling: {} } as const;
  const tokenizer = { encode: () => [], decode: () => '', tokenBytes: () => new Uint8Array() };
  const ok = new EngineClient(clientOn({ load: async () => info }).worker as unknown as Worker, { loadTokenizer: async () => tokenizer });
  expect(ok.tokenizer).toBeNull();
  expect(await ok.load('tiny-llama')).toEqual(info);
  expect(ok.tokenizer).toBe(tokenizer);
  const failing = new EngineClient(clientOn({ load: async () => info }).worker as unknown as Worker, { loadTokenizer: async () => Promise.reject(new Error('HTTP 404')) });
  await expect(failing.load('tiny-llama')).rejects.toMatchObject({ code: 'load_failed', message: expect.stringMatching(/tokenizer did not.*HTTP 404/) });
  expect(failing.model).toBeNull();
});

it("a failed load leaves model as the worker says: the running model when it was kept, null when it had to go", async () => {
  const tiny = { modelId: 'tiny-llama', backend: 'onnx', contextWindow: 4096, toolCalling: true, device: 'cpu', sampling: {} } as const;
  const tokenizer = { encode: () => [], decode: () => '', tokenBytes: () => new Uint8Array() };
  let kept: typeof tiny | null = tiny;
  let loads = 0;
  const api = {
    load: async () => {
      if (loads++ === 0) return tiny;
      throw new Error('could not reach the model host');
    },
    loaded: async () => kept,
  };
  const client = new EngineClient(clientOn(api).worker as unknown as Worker, { loadTokenizer: async () => tokenizer });
  await client.load('tiny-llama');
  await expect(client.load('llama-3.1-8b')).rejects.toThrow(/could not reach/);
  expect(client.model).toEqual(tiny);
  kept = null;
  await expect(client.load('llama-3.1-8b')).rejects.toThrow(/could not reach/);
  expect(client.model).toBeNull();
});
