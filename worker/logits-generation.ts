/**
 * Generation over one sequence (KV cache) of a LogitsBackend: our sampler picks every token from its
 * logits, and that slot's PrefixCache decides what is prefilled.
 *
 * Invariant: `cache` lists exactly the ids the backend's KV cache holds, after success, abort or
 * failure alike (a failure inside the backend clears both: see the engine).
 */
import type { TokenLogprob } from '../src/engine/contract';
import { stopKind } from '../src/format/special-tokens';
import type { LogitsSequence, Pick } from './backends/backend';
import type { ConstraintSession } from './grammar/constraint-session';
import { emptyStats, type Generated, type PreparedRequest } from './generation';
import type { IdBatcher } from './id-batcher';
import type { PrefixCache } from './prefix-cache';
import { createRng } from './rng';
import { createTopSampler, topSamplingApplies, type ResolvedSampling, type Sampler, type TopLogits } from './sampler';
import { tokenLogprob } from './token-logprobs';
import { yieldToEventLoop } from './yield';

/** The pick of a prefill chunk whose logits are not needed. */
const IGNORE = (): number => 0;

export async function generateWithLogits(
  backend: LogitsSequence & { readonly prefillChunk?: number },
  cache: PrefixCache,
  sample: Sampler,
  request: PreparedRequest,
  batcher: IdBatcher,
  signal: AbortSignal | undefined,
  constraint: ConstraintSession | null = null,
): Promise<Generated> {
  const { tokens, maxTokens, sampling, banned, forced } = request;
  const stats = emptyStats(tokens.length);
  if (signal?.aborted) return { tokens: [], stop: 'abort', stopId: null, stats };

  const rng = createRng(request.seed);
  const emitted: number[] = [];
  const recent = tokens.slice(-sampling.penaltyWindow);
  const logprobs: TokenLogprob[] = [];
  const pick = (logits: Float32Array): number => {
    for (const id of banned) logits[id] = -Infinity;
    const forcedId = forced[emitted.length];
    if (forcedId === undefined) constraint?.mask(logits);
    // The sampler may change the logits in place: what it was given is kept for the log probabilities.
    const given = request.logprobs === null ? null : logits.slice();
    const id = forcedId ?? sample(logits, sampling, rng, recent);
    if (given) logprobs.push(tokenLogprob(given, id, request.logprobs!));
    constraint?.accept(id);
    recent.push(id);
    return id;
  };

  // A runtime that keeps the logits on its side may let the sampler decide from the largest ones:
  // only with nothing that needs the whole vector (a grammar's mask, log probabilities, penalties).
  const topSettings = constraint === null && request.logprobs === null && topSamplingApplies(sampling) ? withBans(sampling, banned) : null;
  const sampleTop = topSettings ? createTopSampler() : null;
  const pickOrTop: Pick = Object.assign((logits: Float32Array) => pick(logits), {
    fromTop: (top: TopLogits): number | null => {
      const id = sampleTop!(top, topSettings!, rng);
      if (id !== null) recent.push(id);
      return id;
    },
  });
  /** The pick for the coming step (a forced id is always picked from the whole vector). */
  const pickNow = (): Pick => (sampleTop && forced[emitted.length] === undefined ? pickOrTop : pick);

  /**
   * Readies the constraint for the next pick. Text the grammar forces (at most `limit` ids) is emitted
   * here and returned, to be fed in the coming step instead of one decode step per id.
   */
  const jumpForward = async (limit: number): Promise<number[]> => {
    if (!constraint) return [];
    await constraint.prepare();
    const jump = forced[emitted.length] === undefined && request.logprobs === null ? constraint.jumpForward(limit) : [];
    if (jump.length === 0) return jump;
    await constraint.prepare();
    for (const id of jump) {
      emitted.push(id);
      batcher.push(id);
      recent.push(id);
    }
    stats.decodedTokens += jump.length;
    stats.forwardedTokens = (stats.forwardedTokens ?? 0) + jump.length;
    return jump;
  };

  /** One entry per emitted id (a terminator's pick is not among them). */
  const withLogprobs = (): { logprobs?: TokenLogprob[] } => (request.logprobs === null ? {} : { logprobs: logprobs.slice(0, emitted.length) });

  let plan = cache.plan(tokens, request.cacheSalt);
  if (plan.keep < cache.length) {
    if (plan.keep > 0 && backend.truncate) {
      await backend.truncate(plan.keep);
      cache.truncate(plan.keep);
    } else {
      await backend.reset();
      cache.clear();
      plan = { keep: 0, suffix: tokens.slice() };
    }
  }
  cache.useSalt(request.cacheSalt);
  stats.reusedTokens = plan.keep;
  stats.prefilledTokens = plan.suffix.length;

  const t0 = performance.now();
  // A long suffix is fed in chunks (bounded memory); only the last chunk's logits are sampled.
  const chunk = backend.prefillChunk ?? plan.suffix.length;
  for (let at = 0; at + chunk < plan.suffix.length; at += chunk) {
    const piece = plan.suffix.slice(at, at + chunk);
    await backend.step(piece, IGNORE);
    cache.append(piece);
    if (signal?.aborted) {
      stats.prefillMs = performance.now() - t0;
      return { tokens: [], stop: 'abort', stopId: null, stats };
    }
  }
  const last = plan.suffix.slice(Math.floor((plan.suffix.length - 1) / chunk) * chunk);
  const leading = await jumpForward(maxTokens - 1);
  let next = await backend.step([...last, ...leading], pickNow());
  cache.append([...last, ...leading]);
  stats.decodedTokens += 1;
  const t1 = performance.now();
  stats.prefillMs = t1 - t0;
  for (;;) {
    const kind = stopKind(next);
    if (kind) {
      stats.decodeMs = performance.now() - t1;
      return { tokens: emitted, stop: kind, stopId: next, stats, ...withLogprobs() };
    }
    emitted.push(next);
    batcher.push(next);
    if (stats.decodedTokens >= maxTokens) break;
    await yieldToEventLoop();
    if (signal?.aborted || batcher.failure) {
      stats.decodeMs = performance.now() - t1;
      return { tokens: emitted, stop: 'abort', stopId: null, stats, ...withLogprobs() };
    }
    const fed = [next, ...(await jumpForward(maxTokens - stats.decodedTokens - 1))];
    next = await backend.step(fed, pickNow());
    cache.append(fed);
    stats.decodedTokens++;
  }
  stats.decodeMs = performance.now() - t1;
  return { tokens: emitted, stop: 'length', stopId: null, stats, ...withLogprobs() };
}

/** The settings with the bans as -Infinity biases (the whole-vector pick bans them in place). */
function withBans(sampling: ResolvedSampling, banned: readonly number[]): ResolvedSampling {
  const logitBias: Record<number, number> = { ...sampling.logitBias };
  for (const id of banned) logitBias[id] = -Infinity;
  return { ...sampling, logitBias };
}
