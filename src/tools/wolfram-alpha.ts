/**
 * The built-in `wolfram_alpha` tool: the query goes to the same-origin proxy, which calls Wolfram|Alpha's
 * LLM API with the server's app id; the answer is that API's plain text (already written for language
 * models: interpretation, result, a link), returned as is.
 *
 * Invariants: the context's signal reaches fetch; failures are ToolErrors in the proxy's words
 * (not configured → its setup hint; rejected key, rate limit, upstream error, timeout, or "could not
 * interpret the input" → what happened); an abort is rethrown as is.
 */
import { callToolProxy, type ProxyClientOptions } from './proxy-client';
import { queryArgument, queryParameters } from './query-argument';
import type { Tool } from './tool';

export interface WolframAlphaOptions extends ProxyClientOptions {
  /** Passed as the LLM API's `maxchars` (its default is 6800). Default: not sent. */
  maxChars?: number;
  /** Ask the user before each query. Default true: the query leaves the machine (see brave-search.ts). */
  needsConfirmation?: boolean;
}

export function wolframAlphaTool(options: WolframAlphaOptions = {}): Tool {
  return {
    name: 'wolfram_alpha',
    description: 'Ask Wolfram|Alpha: math, unit conversion, science, and curated data (populations, dates, ...).',
    parameters: queryParameters('The question or expression, in plain English or Wolfram Language.'),
    needsConfirmation: options.needsConfirmation ?? true,
    async execute(args, { signal }) {
      const input = queryArgument(args, 'wolfram_alpha');
      const params: Record<string, string> = { input };
      if (options.maxChars !== undefined) params.maxchars = String(Math.max(1, Math.trunc(options.maxChars)));
      const answer = await callToolProxy('wolfram_alpha', params, signal, options);
      if (!answer.ok) throw answer.error;
      return answer.text;
    },
  };
}
