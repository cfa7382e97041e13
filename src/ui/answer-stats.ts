/**
 * What one answer cost, shown under it: the model that wrote it, the tokens it generated over all its
 * steps, and the decode rate (tokens per second of decoding, prefill excluded). Kept with the turn.
 */
import * as v from 'valibot';
import type { GenerateStats } from '../engine/contract';
import { fields } from '../parse/fields';

export interface AnswerStats {
  /** The loaded model's id, null when unknown. */
  model: string | null;
  /** Tokens generated over every step (terminators included). */
  tokens: number;
  /** Milliseconds spent decoding them. */
  decodeMs: number;
  steps: number;
}

const STATS = 'expected answer stats';
export const answerStatsSchema = fields(
  { model: v.nullable(v.string(STATS)), tokens: v.number(STATS), decodeMs: v.number(STATS), steps: v.number(STATS) },
  STATS,
);

export function emptyStats(model: string | null): AnswerStats {
  return { model, tokens: 0, decodeMs: 0, steps: 0 };
}

export function addStep(s: AnswerStats, step: GenerateStats): AnswerStats {
  return { ...s, tokens: s.tokens + step.decodedTokens, decodeMs: s.decodeMs + step.decodeMs, steps: s.steps + 1 };
}

/** "Micro Llama · 42 tokens · 310 tok/s · 2 steps" (the rate only when decoding took measurable time). */
export function statsText(s: AnswerStats, label: (modelId: string) => string): string {
  const parts = [s.model ? label(s.model) : 'unknown model', `${s.tokens} ${s.tokens === 1 ? 'token' : 'tokens'}`];
  if (s.decodeMs >= 1) {
    const rate = (s.tokens * 1000) / s.decodeMs;
    parts.push(`${rate >= 100 ? Math.round(rate) : rate.toFixed(1)} tok/s`);
  }
  if (s.steps > 1) parts.push(`${s.steps} steps`);
  return parts.join(' · ');
}
