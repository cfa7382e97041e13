/** An answer's stats in a few words: "42 tokens · 18.3 tok/s · micro-llama". Pure. */
import type { AnswerStats } from './conversation-tree';

export function answerStatsText(stats: AnswerStats): string {
  const parts = [`${stats.tokens.toLocaleString('en-US')} ${stats.tokens === 1 ? 'token' : 'tokens'}`];
  if (stats.decodeMs > 0) parts.push(`${((stats.tokens / stats.decodeMs) * 1000).toFixed(1)} tok/s`);
  if (stats.model !== '') parts.push(stats.model);
  return parts.join(' · ');
}
