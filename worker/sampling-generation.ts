/**
 * Generation over a SamplingBackend (the far side samples): the engine emits a forced continuation
 * itself and sends it as part of the prompt, hands the bans over as -Infinity logit biases, passes a
 * whole-reply constraint on (far-side-constraint.ts), and maps the stop id the far side streams last
 * to a stop kind. What the far side reused is its own report.
 */
import type { Constraint } from '../src/engine/contract';
import { isAbortError } from '../src/engine/errors';
import { STOP_IDS, stopKind } from '../src/format/special-tokens';
import type { SamplingBackend } from './backends/backend';
import { emptyStats, type Generated, type PreparedRequest } from './generation';
import { farSideConstraint } from './far-side-constraint';
import type { IdBatcher } from './id-batcher';

const STOPS = [...STOP_IDS];

export async function generateWithSampler(
  backend: SamplingBackend,
  request: PreparedRequest,
  batcher: IdBatcher,
  signal: AbortSignal | undefined,
  requested?: Constraint,
): Promise<Generated> {
  const { tokens, maxTokens } = request;
  const far = farSideConstraint(requested, request.forced);
  const stats = emptyStats(tokens.length);
  if (signal?.aborted) return { tokens: [], stop: 'abort', stopId: null, stats };
  const emitted: number[] = [];
  let stopId: number | null = null;
  /** Takes one id; true when the generation is over (a stop id, or maxTokens reached). */
  const take = (id: number): boolean => {
    stats.decodedTokens++;
    if (stopKind(id)) {
      stopId = id;
      return true;
    }
    emitted.push(id);
    batcher.push(id);
    return stats.decodedTokens >= maxTokens || batcher.failure !== null;
  };

  const t0 = performance.now();
  let over = false;
  for (const id of request.forced) if (!over) over = take(id);
  if (!over) {
    const logitBias = { ...request.sampling.logitBias };
    for (const id of [...request.banned, ...far.bans]) logitBias[id] = -Infinity;
    const prompt = [...tokens, ...emitted];
    // A consumer that failed ends the generation here: the far side is told to stop too. (A stop id or
    // maxTokens end it there as well, and its report of the reuse comes last: those are left to finish.)
    const done = new AbortController();
    const farSignal = signal ? AbortSignal.any([signal, done.signal]) : done.signal;
    let ended = false;
    try {
      const outcome = await backend.generate(
        {
          prompt,
          sampling: { ...request.sampling, logitBias },
          seed: request.seed,
          maxTokens: maxTokens - stats.decodedTokens,
          stopIds: STOPS,
          ...(far.constraint ? { constraint: far.constraint } : {}),
          ...(request.cacheSalt ? { cacheSalt: request.cacheSalt } : {}),
        },
        (ids) => {
          for (const id of ids) if (!ended) ended = take(id);
          if (batcher.failure) done.abort();
        },
        farSignal,
      );
      stats.reusedTokens = outcome.reusedTokens === null ? null : Math.min(outcome.reusedTokens, tokens.length);
    } catch (e) {
      if (!(isAbortError(e) && farSignal.aborted)) throw e;
    }
  }
  // A forced script that ran to its stop sent nothing: nothing was prefilled.
  if (over) stats.prefilledTokens = 0;
  else stats.prefilledTokens = stats.reusedTokens === null ? null : tokens.length - stats.reusedTokens;
  stats.decodeMs = performance.now() - t0;
  if (stopId !== null) return { tokens: emitted, stop: stopKind(stopId)!, stopId, stats };
  if (signal?.aborted) return { tokens: emitted, stop: 'abort', stopId: null, stats };
  return { tokens: emitted, stop: 'length', stopId: null, stats };
}
