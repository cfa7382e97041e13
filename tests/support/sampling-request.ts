/**
 * SamplingRequests as engine v2 builds them, for backend tests: resolved settings, the engine's
 * structural bans (every special id but `<|python_tag|>` and the stop ids) as -Infinity biases, the
 * Llama 3.1 stop ids, a fixed seed.
 */
import type { SamplingParams } from '../../src/engine/contract';
import { FIRST_SPECIAL_ID, PYTHON_TAG, STOP_IDS, VOCAB_SIZE } from '../../src/format/special-tokens';
import type { SamplingRequest } from '../../worker/backends/backend';
import { resolveSampling } from '../../worker/sampler';

export const STOP_ID_LIST: readonly number[] = [...STOP_IDS].sort((a, b) => a - b);

/** The ids the engine never lets a model sample inside an assistant message. */
export function structuralBanIds(): number[] {
  const out: number[] = [];
  for (let id = FIRST_SPECIAL_ID; id < VOCAB_SIZE; id++) if (id !== PYTHON_TAG && !STOP_IDS.has(id)) out.push(id);
  return out;
}

export function samplingRequest(prompt: readonly number[], o: { sampling?: SamplingParams; maxTokens?: number; ban?: readonly number[]; seed?: number } = {}): SamplingRequest {
  const logitBias: Record<number, number> = { ...o.sampling?.logitBias };
  for (const id of [...structuralBanIds(), ...(o.ban ?? [])]) logitBias[id] = -Infinity;
  return {
    prompt,
    sampling: resolveSampling({ temperature: 0, ...o.sampling, logitBias }),
    seed: o.seed ?? 1234,
    maxTokens: o.maxTokens ?? 96,
    stopIds: STOP_ID_LIST,
  };
}
