/**
 * Section `engine`: engine v2's contract, counted — worker round trips per agent step (must be 1)
 * and per tool result (must be 0) over a 5-step loop, and what the page renders and encodes per step
 * there: whole-conversation renders after the first prompt (must be 0) and the characters encoded
 * per character appended (at most 1.1: each appended text once, plus its role header); what regenerate and edit-last-message prefill
 * on a ~2,000-token history against the suffix that diverges from the cache (each pair must be
 * equal); and the page tokenizer's encode time on 100 KB (median of 5).
 * Throws when a contract figure is off.
 */
import { mixedText } from '../src/format/tokenizer/test-corpus';
import { loadTokenizer } from '../src/format/tokenizer/load-node';
import { countRoundTrips, measurePrefixReuse } from './engine-workloads';
import { median, round, timed } from './measure';
import type { BenchSection } from './section';

const STEPS = 5;
const HISTORY_TOKENS = 2000;

export const engineSection: BenchSection = {
  name: 'engine',
  summary: `worker round trips, whole renders and chars encoded per step (${STEPS}-step loop), regenerate/edit prefill vs divergent suffix (~${HISTORY_TOKENS}-token history), encode 100 KB`,
  async run() {
    const trips = await countRoundTrips({ steps: STEPS, resultTokens: 400, maxResultTokens: 300 });
    const roundTripsPerStep = trips.calls / trips.steps;
    const roundTripsPerToolResult = trips.callsDuringTools / trips.toolResults;
    if (roundTripsPerStep !== 1 || roundTripsPerToolResult !== 0) {
      throw new Error(`engine: ${roundTripsPerStep} round trips per step and ${roundTripsPerToolResult} per tool result (want 1 and 0)`);
    }
    // The same loop with results within the budget: each is counted once (its bytes exceed the budget) and not cut.
    const transcript = await countRoundTrips({ steps: STEPS, resultTokens: 400, maxResultTokens: 1500 });
    const rendersPerStep = transcript.renders / transcript.steps;
    const encodedCharsPerStep = transcript.encodedChars / transcript.appendedChars;
    if (rendersPerStep !== 0 || !(encodedCharsPerStep <= 1.1)) {
      throw new Error(`engine: ${rendersPerStep} whole-conversation renders per step and ${encodedCharsPerStep} chars encoded per char appended (want 0 and at most 1.1)`);
    }
    const reuse = await measurePrefixReuse(HISTORY_TOKENS);
    if (reuse.regeneratePrefilled !== reuse.regenerateSuffix || reuse.editPrefilled !== reuse.editSuffix) {
      throw new Error(`engine: regenerate prefilled ${reuse.regeneratePrefilled} (suffix ${reuse.regenerateSuffix}), edit ${reuse.editPrefilled} (suffix ${reuse.editSuffix})`);
    }
    const tokenizer = loadTokenizer();
    const text = mixedText(100_000);
    tokenizer.encode(`${text} warm-up`);
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) samples.push(await timed(() => tokenizer.encode(`${text} ${i}`)));
    return {
      roundTripsPerStep,
      roundTripsPerToolResult,
      rendersPerStep,
      encodedCharsPerStep: Math.round(encodedCharsPerStep * 1000) / 1000,
      historyTokens: reuse.historyTokens,
      regeneratePrefilled: reuse.regeneratePrefilled,
      regenerateSuffix: reuse.regenerateSuffix,
      editPrefilled: reuse.editPrefilled,
      editSuffix: reuse.editSuffix,
      encodeMs: round(median(samples)),
    };
  },
};
