/**
 * The engine's Web Worker (a module worker): it only exposes the engine through comlink.
 * Abort signals arrive as MessagePorts; token callbacks as comlink proxies.
 */
import { expose } from 'comlink';
import { signalFromPort } from '../src/engine/abort-port';
import type { EngineApi, EngineConfig, TokenBatch } from '../src/engine/contract';
import { installErrorTransfer } from '../src/engine/error-transfer';
import { MODELS } from '../src/engine/models';
import { createTokenizer } from '../src/format/tokenizer/llama-tokenizer';
import { createBrowserBackend } from './backends/browser-backends';
import { detectCapabilities } from './capabilities';
import { Engine } from './engine';

installErrorTransfer();

let config: EngineConfig = {
  modelsBaseUrl: new URL('../models/', import.meta.url).href,
  wasmBaseUrl: new URL('../ort/', import.meta.url).href,
};

const engine = new Engine({
  models: MODELS,
  loadTokenizer: async () => {
    const url = `${config.modelsBaseUrl}llama-3.1-tokenizer/tokenizer.json`;
    const response = await fetch(url);
    if (!response.ok) throw new Error(`tokenizer not found at ${url} (HTTP ${response.status})`);
    return createTokenizer(await response.json());
  },
  createBackend: (ctx) => createBrowserBackend(ctx, config),
  capabilities: detectCapabilities,
});

const api: EngineApi = {
  async configure(next) {
    config = next;
  },
  capabilities: () => engine.capabilities(),
  async load(modelId, options, onProgress, signalPort) {
    const { signal, close } = signalFromPort(signalPort);
    try {
      return await engine.load(modelId, options, onProgress ? (p) => void Promise.resolve(onProgress(p) as unknown).catch(() => {}) : undefined, signal);
    } finally {
      close();
    }
  },
  unload: () => engine.unload(),
  async generate(request, onTokens, signalPort) {
    const { signal, close } = signalFromPort(signalPort);
    let last: Promise<unknown> = Promise.resolve();
    const send = onTokens
      ? (batch: TokenBatch) => {
          last = Promise.resolve(onTokens(batch)).catch(() => {});
        }
      : undefined;
    try {
      const result = await engine.generate(request, send, signal);
      // Token batches travel on the callback's own port: let the last one land before the result.
      await last;
      return result;
    } finally {
      close();
    }
  },
  tokenize: (text) => engine.tokenize(text),
  countTokens: (text) => engine.countTokens(text),
  decode: (tokens) => engine.decode(tokens),
  encodeSegments: (segments) => engine.encodeSegments(segments),
  loseDevice: () => engine.loseDevice(),
};

expose(api);
