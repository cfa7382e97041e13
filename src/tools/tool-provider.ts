/**
 * Who answers brave_search and wolfram_alpha: the real service through the tool proxy, or a local
 * provider on this device (local-search.ts, local-math.ts). `auto` asks the proxy and answers locally
 * when the proxy has no key for the service or there is no proxy at all (static hosting, the offline
 * demo, the CLI without a dev server); any other failure of a configured service stays that failure.
 */
import * as v from 'valibot';
import type { ProxyResult } from './proxy-client';

export const TOOL_PROVIDERS = ['auto', 'service', 'local'] as const;

/** A provider named by a setting, an attribute or a flag (surrounding space ignored). */
export const toolProviderSchema = v.pipe(v.string(), v.trim(), v.picklist(TOOL_PROVIDERS));

export type ToolProvider = v.InferOutput<typeof toolProviderSchema>;

/** The provider `value` names; null for anything else. */
export function parseToolProvider(value: unknown): ToolProvider | null {
  const parsed = v.safeParse(toolProviderSchema, value);
  return parsed.success ? parsed.output : null;
}

export function answersLocally(provider: ToolProvider, answer: ProxyResult): boolean {
  return provider === 'auto' && !answer.ok && (answer.notConfigured || answer.noProxy);
}
