/**
 * The page's one tokenizer: fetched once per URL from the models folder (where setup writes
 * llama-3.1-tokenizer/tokenizer.json) and shared by every caller. A failed fetch is not remembered.
 * Its implementation (llama-tokenizer.ts and its library) loads with the first tokenizer.
 */
import { oncePerUrl } from '../../loading/once-per-url';
import type { TextTokenizer } from '../types';

/** Where the tokenizer lives under a models base URL (ending in "/"). */
export function tokenizerUrl(modelsBaseUrl: string): string {
  return `${modelsBaseUrl}llama-3.1-tokenizer/tokenizer.json`;
}

export const fetchTokenizer: (url: string) => Promise<TextTokenizer> = oncePerUrl(async (url: string) => {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`the tokenizer was not found at ${url} (HTTP ${response.status})`);
  const [json, { createTokenizer }] = await Promise.all([response.json() as Promise<object>, import('./llama-tokenizer')]);
  return createTokenizer(json);
});
