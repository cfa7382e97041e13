import type { LogitsProcessorSpec } from '../src/engine/contract';
import { FIRST_SPECIAL_ID, PYTHON_TAG, STOP_IDS, VOCAB_SIZE } from '../src/format/special-tokens';

/** Mutates the logits of generation step `step` (0 = the token after the prompt) in place. */
export type LogitsProcessor = (logits: Float32Array, step: number) => void;

/** Builds the ordered processors of a request from their data specs. */
export function createLogitsProcessors(specs: readonly LogitsProcessorSpec[] = []): LogitsProcessor[] {
  return specs.map((spec) => {
    switch (spec.type) {
      case 'force':
        return forceContinuation(spec.tokens);
      case 'ban':
        return banTokens(spec.tokens);
      default:
        throw new RangeError(`unknown logits processor ${JSON.stringify((spec as { type: unknown }).type)}`);
    }
  });
}

/**
 * Step i can only produce tokens[i]: every other logit becomes -Infinity. After the script the
 * model runs free. This drives the real model through a scripted continuation in tests.
 */
export function forceContinuation(tokens: readonly number[]): LogitsProcessor {
  return (logits, step) => {
    const forced = tokens[step];
    if (forced === undefined) return;
    if (!(forced >= 0 && forced < logits.length)) throw new RangeError(`forced token ${forced} is outside the vocabulary`);
    logits.fill(-Infinity);
    logits[forced] = 0;
  };
}

export function banTokens(tokens: readonly number[]): LogitsProcessor {
  return (logits) => {
    for (const id of tokens) if (id >= 0 && id < logits.length) logits[id] = -Infinity;
  };
}

/**
 * Inside an assistant message Llama 3.1 emits only text, `<|python_tag|>` and a terminator. Every
 * other special id (headers, begin_of_text, reserved ids) would be structure the renderer refuses to
 * replay, so it is never sampled. Applied before the request's own processors (a forced script wins).
 */
export function banStructuralTokens(): LogitsProcessor {
  const banned: number[] = [];
  for (let id = FIRST_SPECIAL_ID; id < VOCAB_SIZE; id++) if (id !== PYTHON_TAG && !STOP_IDS.has(id)) banned.push(id);
  return banTokens(banned);
}
