/**
 * One generate request, checked and resolved once for whichever kind of backend serves it: the
 * prompt, the room left in the context window, the sampling settings with their seed, the bans
 * (structural special ids and the request's own) and the forced continuation.
 */
import type { GenerateRequest, GenerateStats, StopReason } from '../src/engine/contract';
import { EngineError } from '../src/engine/errors';
import { FIRST_SPECIAL_ID, PYTHON_TAG, STOP_IDS, VOCAB_SIZE } from '../src/format/special-tokens';
import { randomSeed } from './rng';
import { resolveSampling, type ResolvedSampling } from './sampler';
import { MAX_TOP_LOGPROBS } from './token-logprobs';

export const DEFAULT_MAX_TOKENS = 1024;

/**
 * Inside an assistant message Llama 3.1 emits only text, `<|python_tag|>` and a terminator. Every
 * other special id (headers, begin_of_text, reserved ids) would be structure the renderer refuses to
 * replay, so it is never sampled (a forced script may still emit it).
 */
export const STRUCTURAL_IDS: readonly number[] = Array.from({ length: VOCAB_SIZE - FIRST_SPECIAL_ID }, (_, i) => FIRST_SPECIAL_ID + i).filter(
  (id) => id !== PYTHON_TAG && !STOP_IDS.has(id),
);

export interface PreparedRequest {
  tokens: readonly number[];
  maxTokens: number;
  sampling: ResolvedSampling;
  seed: number;
  /** Ids that are never sampled: the structural ones and the request's `ban` processors. */
  banned: readonly number[];
  /** Step i can only produce forced[i] (the first `force` processor); after it the model runs free. */
  forced: readonly number[];
  /** The request's cache salt ('' when none). */
  cacheSalt: string;
  /** Alternatives to report per emitted id, or null for no log probabilities. */
  logprobs: number | null;
}

/** Checks a request against the context window; throws EngineError (or RangeError for sampling). */
export function prepareRequest(request: GenerateRequest, contextWindow: number): PreparedRequest {
  const { tokens } = request;
  validateTokens(tokens);
  if (tokens.length >= contextWindow) {
    throw new EngineError(
      'context_overflow',
      `the prompt has ${tokens.length} tokens and the context window is ${contextWindow}: nothing left to generate into`,
    );
  }
  const maxTokens = Math.min(request.maxTokens ?? DEFAULT_MAX_TOKENS, contextWindow - tokens.length);
  if (!(maxTokens >= 1)) throw new EngineError('invalid_request', 'maxTokens must be at least 1');
  const banned = [...STRUCTURAL_IDS];
  const forced: number[] = [];
  for (const spec of request.logitsProcessors ?? []) {
    if (spec.type !== 'ban' && spec.type !== 'force') throw new RangeError(`unknown logits processor ${JSON.stringify((spec as { type: unknown }).type)}`);
    for (const id of spec.tokens) {
      if (!Number.isInteger(id) || id < 0 || id >= VOCAB_SIZE) throw new RangeError(`${spec.type} token ${id} is outside the vocabulary`);
    }
    if (spec.type === 'ban') banned.push(...spec.tokens);
    else if (forced.length === 0) forced.push(...spec.tokens);
  }
  if (request.cacheSalt !== undefined && typeof request.cacheSalt !== 'string') throw new EngineError('invalid_request', 'cacheSalt must be a string');
  const logprobs = request.logprobs ?? null;
  if (logprobs !== null && !(Number.isInteger(logprobs) && logprobs >= 0 && logprobs <= MAX_TOP_LOGPROBS)) throw new RangeError(`logprobs must be an integer from 0 to ${MAX_TOP_LOGPROBS}`);
  return { tokens, maxTokens, sampling: resolveSampling(request.sampling), seed: request.sampling?.seed ?? randomSeed(), banned, forced, cacheSalt: request.cacheSalt ?? '', logprobs };
}

/** What a generation loop hands back to the engine. */
export interface Generated {
  tokens: number[];
  stop: StopReason;
  stopId: number | null;
  stats: GenerateStats;
}

export function emptyStats(promptTokens: number): GenerateStats {
  return { promptTokens, reusedTokens: 0, prefilledTokens: 0, decodedTokens: 0, prefillMs: 0, decodeMs: 0 };
}

function validateTokens(tokens: unknown): asserts tokens is number[] {
  if (!Array.isArray(tokens) || tokens.length === 0) throw new EngineError('invalid_request', 'tokens must be a non-empty array of ids');
  for (const id of tokens) {
    if (!Number.isInteger(id) || id < 0 || id >= VOCAB_SIZE) throw new EngineError('invalid_request', `token id ${id} is outside the vocabulary`);
  }
}
