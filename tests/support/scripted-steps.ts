/**
 * An engine whose next generate calls are forced through scripts (one per call, in order, each
 * through the real model and sampler), then run free: how tests and the bench drive the page's
 * session with a known model side, without a hook in the session itself.
 */
import type { EngineLike, LogitsProcessorSpec } from '../../src/engine/contract';

export function withScriptedSteps(engine: EngineLike): EngineLike & { forceNextRun(idsPerStep: number[][]): void } {
  let scripts: number[][] = [];
  return {
    generate(request, onIds, signal) {
      const script = scripts.shift();
      const logitsProcessors: LogitsProcessorSpec[] = script ? [{ type: 'force', tokens: script }, ...(request.logitsProcessors ?? [])] : (request.logitsProcessors ?? []);
      return engine.generate({ ...request, logitsProcessors }, onIds, signal);
    },
    forceNextRun(idsPerStep) {
      scripts = idsPerStep.map((ids) => [...ids]);
    },
  };
}
