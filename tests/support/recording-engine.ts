/**
 * Test wrapper over an engine: its next generate calls can be forced through scripts (the real model
 * and sampler emit them, see src/agent/scripted-output.ts), and every request and result is kept so a
 * test can compare prompts byte for byte and read the engine's own stats.
 */
import { withScriptedSteps } from './scripted-steps';
import type { EngineLike, GenerateRequest, GenerateResult, LoadedModelInfo } from '../../src/engine/contract';
import type { TextTokenizer } from '../../src/format/types';

export interface RecordingEngine extends EngineLike {
  readonly model: LoadedModelInfo | null;
  readonly tokenizer: TextTokenizer;
  readonly calls: Array<{ request: GenerateRequest; result?: GenerateResult }>;
  forceNextRun(idsPerStep: number[][]): void;
}

export function recordingEngine(engine: EngineLike & { readonly model: LoadedModelInfo | null }, tokenizer: TextTokenizer): RecordingEngine {
  const scripted = withScriptedSteps(engine);
  const calls: RecordingEngine['calls'] = [];
  return {
    get model() {
      return engine.model;
    },
    tokenizer,
    calls,
    forceNextRun: (ids) => scripted.forceNextRun(ids),
    async generate(request, onIds, signal) {
      const call: RecordingEngine['calls'][number] = { request };
      calls.push(call);
      call.result = await scripted.generate(request, onIds, signal);
      return call.result;
    },
  };
}
