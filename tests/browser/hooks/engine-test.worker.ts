/**
 * The browser tests' engine worker (started only by the test entries in this folder, never by the
 * product): the product engine plus one hook the product must not have: `forceNextRun(idsPerStep)` —
 * the next generate calls emit idsPerStep[0], [1], … (each through the real model and sampler, as a
 * forced continuation), then the model runs free again.
 */
import { expose } from 'comlink';
import type { EngineConfig, GenerateRequest } from '../../../src/engine/contract';
import { installErrorTransfer } from '../../../src/engine/error-transfer';
import { createBrowserEngine } from '../../../worker/browser-engine';
import { engineApi } from '../../../worker/engine-api';
import type { TestEngineApi } from './test-engine-client';

installErrorTransfer();

// Replaced by the client's configure() before any load; in a build this chunk sits in assets/, beside the product worker.
let config: EngineConfig = {
  modelsBaseUrl: new URL('../models/', import.meta.url).href,
  wasmBaseUrl: new URL('../ort/', import.meta.url).href,
};
let forced: number[][] = [];

const product = engineApi(createBrowserEngine(() => config), (next) => (config = next));

const api: TestEngineApi = {
  ...product,
  generate(request: GenerateRequest, onIds, signalPort) {
    const script = forced.shift();
    const withScript = script ? { ...request, logitsProcessors: [{ type: 'force' as const, tokens: script }, ...(request.logitsProcessors ?? [])] } : request;
    return product.generate(withScript, onIds, signalPort);
  },
  async forceNextRun(idsPerStep) {
    forced = idsPerStep.map((ids) => [...ids]);
  },
};

expose(api);
