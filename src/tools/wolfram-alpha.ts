/**
 * The built-in `wolfram_alpha` tool: the query goes to the same-origin proxy, which calls Wolfram|Alpha's
 * LLM API with the server's app id; the answer is that API's plain text (already written for language
 * models: interpretation, result, a link), returned as is.
 *
 * Invariants: the context's signal reaches fetch; failures are ToolErrors in the proxy's words
 * (not configured → its setup hint; rejected key, rate limit, upstream error, timeout, or "could not
 * interpret the input" → what happened); an abort is rethrown as is. With `localMath` (provider
 * `local`, or `auto` when the proxy has no app id or there is none: tool-provider.ts,
 * proxy-services.ts) mathjs answers on this device, and the input is not sent to the proxy either, in
 * the same text shape (local-math.ts, loaded on its first use: mathjs is large; the tool's description
 * says it is local).
 */
import { callToolProxy, type ProxyClientOptions } from './proxy-client';
import { proxyServicesOnce, queryDestination, type ServicesOption } from './proxy-services';
import { queryArgument, queryParameters } from './query-argument';
import type { Tool } from './tool';
import { answersLocally, type ToolProvider } from './tool-provider';

export interface WolframAlphaOptions extends ProxyClientOptions, ServicesOption {
  /** Passed as the LLM API's `maxchars` (its default is 6800). Default: not sent. */
  maxChars?: number;
  /** Ask the user before each query. Default true: the query leaves the machine (see brave-search.ts). */
  needsConfirmation?: boolean;
  /** Answer arithmetic, roots, derivatives and unit conversions on this device (local-math.ts). */
  localMath?: boolean;
  /** Default `auto` with localMath, else `service`. `local` never asks (nothing leaves the device). */
  provider?: ToolProvider;
}

export function wolframAlphaTool(options: WolframAlphaOptions = {}): Tool {
  const provider = options.localMath ? (options.provider ?? 'auto') : 'service';
  const services = options.services ?? proxyServicesOnce(options.proxyBase, options.fetch);
  const destination = (signal: AbortSignal) => queryDestination('wolfram_alpha', provider, () => services(signal));
  return {
    name: 'wolfram_alpha',
    description:
      provider === 'local'
        ? 'Compute on this device (mathjs): arithmetic, powers, roots, derivatives and unit conversions.'
        : 'Ask Wolfram|Alpha: math, unit conversion, science, and curated data (populations, dates, ...).',
    parameters: queryParameters('The question or expression, in plain English or Wolfram Language.'),
    needsConfirmation: provider === 'local' ? false : (options.needsConfirmation ?? true),
    destination,
    async execute(args, { signal, reportSource }) {
      const input = queryArgument(args, 'wolfram_alpha');
      const answerLocally = async () => {
        const { localMath, LOCAL_MATH_SOURCE } = await import('./local-math');
        reportSource?.(LOCAL_MATH_SOURCE);
        return localMath(input);
      };
      if (provider === 'local' || (provider === 'auto' && (await destination(signal)).onDevice)) return answerLocally();
      const params: Record<string, string> = { input };
      if (options.maxChars !== undefined) params.maxchars = String(Math.max(1, Math.trunc(options.maxChars)));
      const answer = await callToolProxy('wolfram_alpha', params, signal, options);
      if (answersLocally(provider, answer)) return answerLocally();
      if (!answer.ok) throw answer.error;
      return answer.text;
    },
  };
}
