/**
 * The one `POST /v1/completions` body both vLLM and llama-server accept (each ignores the other's
 * fields): the prompt as ids, every sampling setting under both servers' names, ids streamed back
 * (vLLM's `return_token_ids`, llama.cpp's `logprobs.content[].id`), usage at the end, the server's own
 * prefix cache on, special tokens kept as text; a constraint in the fields of the server's own kind
 * (constraint-fields.ts). This project's `serve` gets the subset it implements (vLLM's way of
 * streaming ids). Pure.
 *
 * Bans: the engine writes them as -Infinity, which JSON cannot carry. llama-server reads `false` as
 * -Infinity; vLLM clamps biases to ±100, so -100 is the strongest it accepts (logit − 100: a
 * probability below e^-100 of what it was, never sampled in practice). +Infinity (forcing) becomes
 * 1e30 for llama-server and +100 for vLLM; the engine forces tokens by extending the prompt instead.
 */
import type { SamplingRequest } from '../backend';
import { constraintFields } from './constraint-fields';
import type { ServerKind } from '../../../src/engine/remote/remote-config';

const VLLM_BIAS_LIMIT = 100;
/** Finite in float32, larger than any logit: llama-server's stand-in for +Infinity. */
const LLAMA_CPP_FORCE = 1e30;

export function completionBody(request: SamplingRequest, kind: ServerKind, model: string | undefined): Record<string, unknown> {
  const s = request.sampling;
  const body: Record<string, unknown> = {
    ...(model ? { model } : {}),
    prompt: [...request.prompt],
    max_tokens: request.maxTokens,
    temperature: s.temperature,
    top_p: s.topP,
    top_k: s.topK,
    min_p: s.minP,
    seed: request.seed >>> 0,
    // vLLM applies repetition_penalty over prompt and output; llama.cpp and llama-agent over the last repeat_last_n ids.
    repetition_penalty: s.repetitionPenalty,
    repeat_last_n: s.penaltyWindow,
    frequency_penalty: s.frequencyPenalty,
    presence_penalty: s.presencePenalty,
    logit_bias: logitBias(s.logitBias, kind),
    stop_token_ids: [...request.stopIds],
    stream: true,
    stream_options: { include_usage: true },
    return_token_ids: true,
    skip_special_tokens: false,
    ...(request.constraint ? constraintFields(request.constraint, kind) : {}),
  };
  const salt = request.cacheSalt;
  // llama-server's names and its way of streaming ids (the top log probability's id); llama-agent refuses fields it does not implement.
  if (kind === 'llama-agent') return salt ? { ...body, cache_salt: salt } : body;
  // llama-server has no cache salt: a salted request does not use its prompt cache at all, so it shares nothing.
  if (kind === 'llama.cpp') return { ...body, repeat_penalty: s.repetitionPenalty, logprobs: 1, cache_prompt: !salt };
  return { ...body, repeat_penalty: s.repetitionPenalty, logprobs: 1, cache_prompt: true, ...(salt ? { cache_salt: salt } : {}) };
}

/** Bias by id as the server reads it; -Infinity (a ban) becomes llama.cpp's `false` or vLLM's -100. */
export function logitBias(bias: Readonly<Record<number, number>>, kind: ServerKind): Record<string, number | false> {
  const out: Record<string, number | false> = {};
  for (const [id, value] of Object.entries(bias)) {
    if (Number.isNaN(value)) throw new RangeError(`logitBias[${id}] is NaN`);
    if (kind === 'llama.cpp') out[id] = value === -Infinity ? false : Math.min(value, LLAMA_CPP_FORCE);
    else out[id] = Math.max(-VLLM_BIAS_LIMIT, Math.min(VLLM_BIAS_LIMIT, value));
  }
  return out;
}
