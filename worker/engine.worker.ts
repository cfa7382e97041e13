/**
 * The engine's Web Worker (a module worker): it only exposes the engine through comlink.
 * The model, its KV cache and the sampler live here; the tokenizer is the page's.
 */
import { expose } from 'comlink';
import type { EngineConfig } from '../src/engine/contract';
import { installErrorTransfer } from '../src/engine/error-transfer';
import { createBrowserEngine } from './browser-engine';
import { engineApi } from './engine-api';

installErrorTransfer();

let config: EngineConfig = {
  modelsBaseUrl: new URL('../models/', import.meta.url).href,
  wasmBaseUrl: new URL('../ort/', import.meta.url).href,
};

expose(engineApi(createBrowserEngine(() => config), (next) => (config = next)));
