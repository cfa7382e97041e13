/**
 * Who answers brave_search and wolfram_alpha: the real service through the tool proxy, or a local
 * provider on this device (local-search.ts, local-math.ts). `auto` asks the proxy and answers locally
 * when the proxy has no key for the service or there is no proxy at all (static hosting, the offline
 * demo, the CLI without a dev server); any other failure of a configured service stays that failure.
 */
import type { ProxyResult } from './proxy-client';

export type ToolProvider = 'auto' | 'service' | 'local';

export const TOOL_PROVIDERS: readonly ToolProvider[] = ['auto', 'service', 'local'];

/** A provider named by a setting, an attribute or a flag (surrounding space ignored); null for anything else. */
export function parseToolProvider(value: unknown): ToolProvider | null {
  const v = typeof value === 'string' ? value.trim() : value;
  return TOOL_PROVIDERS.find((p) => p === v) ?? null;
}

export function answersLocally(provider: ToolProvider, answer: ProxyResult): boolean {
  return provider === 'auto' && !answer.ok && (answer.notConfigured || answer.noProxy);
}
