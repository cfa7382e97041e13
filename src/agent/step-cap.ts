/**
 * How many tokens one generation step may emit: the caller's limit, and never more than a quarter of
 * the model's context window, so one runaway step cannot fill the conversation (the 1,024-token micro
 * model gets 256 per step; a 4,096-token model keeps the default 1,024).
 */
export const STEP_SHARE_OF_CONTEXT = 4;

/** Tokens per step when the caller sets no limit. */
export const DEFAULT_MAX_TOKENS_PER_STEP = 1024;

export function stepTokenCap(maxTokensPerStep: number, contextWindow: number | undefined): number {
  if (contextWindow === undefined) return maxTokensPerStep;
  return Math.max(1, Math.min(maxTokensPerStep, Math.floor(contextWindow / STEP_SHARE_OF_CONTEXT)));
}
