/** The engine as a browser worker runs it: models.json's models on web-llm or onnxruntime-web. */
import type { EngineConfig } from '../src/engine/contract';
import { MODELS } from '../src/engine/models';
import { createBrowserBackend } from './backends/browser-backends';
import { detectCapabilities } from './capabilities';
import { Engine } from './engine';
import { browserGrammars } from './grammar/browser-grammars';

/** A browser engine that reads where its files are from `config()` at load time. */
export function createBrowserEngine(config: () => EngineConfig): Engine {
  return new Engine({
    models: MODELS,
    createBackend: (ctx) => createBrowserBackend(ctx, config()),
    capabilities: detectCapabilities,
    grammars: browserGrammars(() => config().modelsBaseUrl),
  });
}
