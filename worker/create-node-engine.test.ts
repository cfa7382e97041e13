/**
 * Loading what a user names, by the product factories: a GGUF on node-llama-cpp (its own context
 * narrows the engine's), an engine server (the key from the Node engine's options only; a site path
 * needs a page), and the browser's factory (a server without a key, resolved against the models'
 * site; a GGUF refused in words).
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ggufPath } from '../scripts/setup/gguf-models';
import { sourceEntry } from '../src/engine/model-source';
import { startFixtureServer, type FixtureServer } from '../tests/fakes/completions-fixture-server';
import { createBrowserBackend } from './backends/browser-backends';
import { createNodeEngine } from './create-node-engine';

let fixture: FixtureServer;
beforeAll(async () => {
  fixture = await startFixtureServer();
  fixture.models = { status: 200, json: { object: 'list', data: [{ id: 'meta-llama/Llama-3.1-70B-Instruct', owned_by: 'vllm', max_model_len: 32768 }] } };
});
afterAll(() => fixture?.close());

/** A port nothing listens on (just released by the OS). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const ctx = (entry: ReturnType<typeof sourceEntry>) => ({ entry, options: {}, onProgress: () => {}, signal: new AbortController().signal });

describe('the Node engine, a model the user names', () => {
  it('a GGUF file runs on node-llama-cpp, named by its file, with the context its file gives (not Llama 3.1’s 128k)', async () => {
    const engine = createNodeEngine([], { llamaCppThreads: 1 });
    const info = await engine.load({ kind: 'gguf', path: ggufPath('micro-llama', 'F32') });
    try {
      expect(info).toMatchObject({ modelId: 'micro-llama-f32.gguf', backend: 'llamacpp', device: 'cpu', contextWindow: 1024, toolCalling: true, sampling: {} });
      await expect(engine.generate({ tokens: Array.from({ length: 1024 }, () => 271) })).rejects.toMatchObject({ code: 'context_overflow', message: expect.stringMatching(/context window is 1024/) });
    } finally {
      await engine.unload();
    }
  });

  it('a GGUF samples the same tokens whether its largest logits decide or the whole vector is handed over (as log probabilities need)', async () => {
    const engine = createNodeEngine([], { llamaCppThreads: 1 });
    await engine.load({ kind: 'gguf', path: ggufPath('micro-llama', 'F32') });
    try {
      // "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHello!<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
      const tokens = [128000, 128006, 882, 128007, 271, 9906, 0, 128009, 128006, 78191, 128007, 271];
      for (const seed of [1, 2, 3]) {
        const sampling = { seed, temperature: 1, topP: 0.95 };
        const fromTop = await engine.generate({ tokens, sampling, maxTokens: 24 });
        const whole = await engine.generate({ tokens, sampling, maxTokens: 24, logprobs: 0 });
        expect(whole.logprobs).toHaveLength(whole.tokens.length);
        expect(fromTop.tokens).toEqual(whole.tokens);
        expect(fromTop.stop).toBe(whole.stop);
      }
    } finally {
      await engine.unload();
    }
  });

  it('an engine server gets the key from the engine’s options; its served model names the load, its context narrows it', async () => {
    const engine = createNodeEngine([], { engineApiKey: 'sk-from-env' });
    const info = await engine.load({ kind: 'server', url: fixture.url, model: 'meta-llama/Llama-3.1-70B-Instruct' });
    expect(info).toMatchObject({ modelId: 'meta-llama/Llama-3.1-70B-Instruct', backend: 'remote', device: `vllm at ${fixture.url}`, contextWindow: 32768 });
    expect(fixture.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/models', headers: { authorization: 'Bearer sk-from-env' } });
    await engine.unload();
  });

  it('refuses in words: a site path (Node has no page), a bad source, a server that is not there', async () => {
    const engine = createNodeEngine();
    await expect(engine.load({ kind: 'server', url: '/api/engine/' })).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/a path on a web site; in Node give the whole URL/) });
    await expect(engine.load({ kind: 'server', url: 'https://me:pw@h/' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(engine.load({ kind: 'gguf', path: '/etc/passwd' } as never)).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(engine.load({ kind: 'server', url: `http://127.0.0.1:${await closedPort()}` })).rejects.toMatchObject({ code: 'server_unreachable', message: expect.stringMatching(/connection refused/) });
    expect(engine.model).toBeNull();
  });
});

describe('the browser factory', () => {
  const config = () => ({ modelsBaseUrl: `${fixture.url}/models/`, wasmBaseUrl: `${fixture.url}/ort/` });

  it('reaches a server by a path on the models’ site, with no key', async () => {
    const backend = await createBrowserBackend(ctx(sourceEntry({ kind: 'server', url: '/' })), config());
    expect(backend.device).toBe(`vllm at ${fixture.url}/`);
    const probe = fixture.requests.at(-1)!;
    expect([probe.path, probe.headers.authorization]).toEqual(['/v1/models', undefined]);
    await backend.dispose();
  });

  it('refuses a GGUF in words: it runs in Node', async () => {
    await expect(createBrowserBackend(ctx(sourceEntry({ kind: 'gguf', path: '/m/x.gguf' })), config())).rejects.toMatchObject({ code: 'load_failed', message: expect.stringMatching(/runs with node-llama-cpp in Node/) });
  });
});
