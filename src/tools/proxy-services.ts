/**
 * Where the tool proxy sends each service's queries: `GET <proxyBase>services` answers, per service,
 * whether a key is set and the upstream host (never the key). The tools read it to decide, before a
 * call, whether it is answered on this device or sent out — and the confirmation says which.
 *
 * Invariant: a proxy that cannot be reached or does not speak this protocol reads as `null` (no
 * proxy): with provider `auto` every query is then answered on this device.
 */
import * as v from 'valibot';
import { SERVICE_NAMES, type ServiceName } from './failure-texts';
import { DEFAULT_PROXY_BASE, proxyUrl } from './proxy-client';
import type { ToolDestination } from './tool';
import type { ToolProvider } from './tool-provider';

export const SERVICES_ENDPOINT = 'services';

const serviceStatus = v.object({ configured: v.boolean(), host: v.string() });
const servicesSchema = v.object({ brave_search: serviceStatus, wolfram_alpha: serviceStatus } satisfies Record<ServiceName, unknown>);

export type ProxyServices = v.InferOutput<typeof servicesSchema>;


export async function fetchProxyServices(proxyBase: string, signal: AbortSignal, doFetch: typeof fetch = globalThis.fetch.bind(globalThis)): Promise<ProxyServices | null> {
  try {
    const response = await doFetch(proxyUrl(proxyBase, SERVICES_ENDPOINT, {}), { signal, headers: { accept: 'application/json' } });
    if (!response.ok) return null;
    const parsed = v.safeParse(servicesSchema, await response.json());
    return parsed.success ? parsed.output : null;
  } catch {
    signal.throwIfAborted();
    return null;
  }
}

/**
 * Where `tool`'s queries go under `provider`: `local` on this device; `service` to the service (its
 * host when the proxy says); `auto` to the service only when the proxy has its key.
 */
export async function queryDestination(
  tool: ServiceName,
  provider: ToolProvider,
  services: () => Promise<ProxyServices | null>,
): Promise<ToolDestination> {
  if (provider === 'local') return { onDevice: true };
  const status = (await services())?.[tool] ?? null;
  if (provider === 'auto' && !status?.configured) return { onDevice: true };
  return { onDevice: false, service: SERVICE_NAMES[tool].label, host: status?.host ?? null };
}

/** Reads the proxy's status (proxyServicesOnce). */
export type ProxyServicesSource = (signal: AbortSignal) => Promise<ProxyServices | null>;

export interface ServicesOption {
  /** The proxy's status, shared by the tools of one set so it is asked once (default: the tool asks on its own). */
  services?: ProxyServicesSource;
}

/** The proxy's status asked once, on first need, for the life of a tool set (a run); an aborted ask is asked again. */
export function proxyServicesOnce(proxyBase = DEFAULT_PROXY_BASE, doFetch?: typeof fetch): ProxyServicesSource {
  let asked: Promise<ProxyServices | null> | null = null;
  return (signal) => {
    if (!asked) {
      const ask = fetchProxyServices(proxyBase, signal, doFetch);
      asked = ask;
      ask.catch(() => {
        if (asked === ask) asked = null;
      });
    }
    return asked;
  };
}
