/**
 * Forced steps for runAgent: step i emits scripts[i] through the real model and sampler (a forced
 * continuation); later steps run free.
 */
import { scriptIds } from '../../src/agent/scripted-output';
import type { LogitsProcessorSpec } from '../../src/engine/contract';
import type { TextTokenizer } from '../../src/format/types';

export function forceSteps(scripts: readonly string[], tokenizer: TextTokenizer): (step: number) => LogitsProcessorSpec[] | undefined {
  const forced = scripts.map((s) => scriptIds(s, tokenizer));
  return (step) => (forced[step] ? [{ type: 'force', tokens: forced[step] }] : undefined);
}
