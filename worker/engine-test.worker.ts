/**
 * TEST-ONLY worker entry (started by the browser tests through `?test-hooks` / the widget's
 * `test-hooks` attribute, never by the product): the product engine plus two hooks that tests need
 * and the product must not have: `forceNextRun(idsPerStep)` — the next generate calls emit
 * idsPerStep[0], [1], … (each through the real model and sampler, as a forced continuation), then the
 * model runs free again.
 */
import { expose } from 'comlink';
import type { EngineConfig, GenerateRequest } from '../src/engine/contract';
import { installErrorTransfer } from '../src/engine/error-transfer';
import type { TestEngineApi } from '../src/engine/test-engine-client';
import { createBrowserEngine } from './browser-engine';
import { engineApi } from './engine-api';

installErrorTransfer();

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
