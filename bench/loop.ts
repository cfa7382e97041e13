/**
 * Section `loop`: a tool loop on the tiny model (real onnx backend, real format), run with the
 * prefix cache (one engine whose prompts extend) and re-prefilling everything at every step (a
 * second engine made to drop its cache before each step, outside the timing), in interleaved rounds.
 * Throws unless the cached run prefilled exactly the appended ids.
 */
import { loadTokenizer } from '../src/format/tokenizer/load-node';
import { createNodeEngine } from '../worker/create-node-engine';
import { interleave, median, round } from './measure';
import type { BenchSection } from './section';
import { runToolLoop, type ToolLoopOptions, type ToolLoopRun } from './tool-loop';

const STEPS = 5;
const RESULT_TOKENS = 400;
const ROUNDS = 9;

export const loopSection: BenchSection = {
  name: 'loop',
  summary: `${STEPS}-step brave_search loop, ~${RESULT_TOKENS}-token results, tiny model: prefix cache vs re-prefill every step`,
  async run() {
    const tokenizer = loadTokenizer();
    const cached = createNodeEngine();
    const stateless = createNodeEngine();
    await Promise.all([cached.load('tiny-llama'), stateless.load('tiny-llama')]);
    try {
      const options = (reprefill: boolean): ToolLoopOptions => ({ steps: STEPS, resultTokens: RESULT_TOKENS, reprefill });
      const runs: Record<'withCache' | 'without', ToolLoopRun[]> = { withCache: [], without: [] };
      // One untimed run each: warm-up, and the token counts (the same in every round).
      const first = { withCache: await runToolLoop(cached, tokenizer, options(false)), without: await runToolLoop(stateless, tokenizer, options(true)) };
      checkInvariant(first.withCache, first.without);
      const samples = await interleave(ROUNDS, {
        withCache: async () => record(runs.withCache, await runToolLoop(cached, tokenizer, options(false))),
        without: async () => record(runs.without, await runToolLoop(stateless, tokenizer, options(true))),
      });
      for (const run of runs.withCache) checkInvariant(run, first.without);
      const wallWith = median(samples.withCache);
      const wallWithout = median(samples.without);
      const prefillWith = median(runs.withCache.map((r) => r.prefillMs));
      const prefillWithout = median(runs.without.map((r) => r.prefillMs));
      return {
        steps: STEPS,
        resultTokens: RESULT_TOKENS,
        finalPromptTokens: first.withCache.finalPromptTokens,
        appendedTokens: first.withCache.appended,
        prefilledWithCache: first.withCache.prefilled,
        prefilledWithout: first.without.prefilled,
        prefilledRatio: round(first.without.prefilled / first.withCache.prefilled),
        wallMsWithCache: round(wallWith),
        wallMsWithout: round(wallWithout),
        wallRatio: round(wallWithout / wallWith),
        prefillMsWithCache: round(prefillWith),
        prefillMsWithout: round(prefillWithout),
        prefillRatio: round(prefillWithout / prefillWith),
        rounds: ROUNDS,
      };
    } finally {
      await Promise.all([cached.unload(), stateless.unload()]);
    }
  },
};

function record(runs: ToolLoopRun[], run: ToolLoopRun): number {
  runs.push(run);
  return run.wallMs;
}

/** The prefix cache's contract, checked on every timed run: a regression fails the bench. */
export function checkInvariant(withCache: ToolLoopRun, without: ToolLoopRun): void {
  if (withCache.prefilled !== withCache.appended) {
    throw new Error(`loop: with the prefix cache the engine prefilled ${withCache.prefilled} ids, but only ${withCache.appended} were appended`);
  }
  if (without.prefilled !== without.promptTotal) {
    throw new Error(`loop: re-prefilling should run every prompt id (${without.promptTotal}), the engine ran ${without.prefilled}`);
  }
  if (without.appended !== withCache.appended) throw new Error('loop: the two runs rendered different conversations');
}
