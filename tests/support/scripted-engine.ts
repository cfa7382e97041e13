/**
 * An engine without a model for loop tests: each generate call emits the next scripted text (its ids as
 * the tokenizer writes them, streamed once) and stops as scripted; every request is kept.
 */
import type { EngineLike, GenerateRequest } from '../../src/engine/contract';
import type { TextTokenizer } from '../../src/format/types';

const EOM = 128008;
const EOT = 128009;

export type ScriptedStep = { text: string; stop: 'eom' | 'eot' };

export function scriptedEngine(tokenizer: TextTokenizer, steps: readonly ScriptedStep[]): EngineLike & { requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  return {
    requests,
    async generate(request, onIds) {
      const step = steps[requests.length];
      if (!step) throw new Error(`the script has ${steps.length} steps; step ${requests.length + 1} was asked for`);
      requests.push(request);
      const tokens = tokenizer.encode(step.text);
      onIds?.(tokens);
      return { tokens, stop: step.stop, stopId: step.stop === 'eom' ? EOM : EOT, stats: { promptTokens: request.tokens.length, reusedTokens: null, prefilledTokens: null, decodedTokens: tokens.length + 1, prefillMs: 0, decodeMs: 0 } };
    },
  };
}

/** A custom call as the model writes it, ending its message with eom. */
export const customCall = (name: string, parameters: Record<string, unknown> = {}): ScriptedStep => ({ text: JSON.stringify({ name, parameters }).replace(/":/g, '": ').replace(/,"/g, ', "'), stop: 'eom' });
