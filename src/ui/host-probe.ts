/**
 * After a model's download failed, the page tries each of its hosts itself to say which one failed
 * and why: a no-cors request that gets any answer means the host is reachable; one this page's
 * Content-Security-Policy refused shows up as a `securitypolicyviolation` for that host; anything
 * else is unreachable (offline, DNS, a firewall, an extension). Only hosts the user already agreed
 * to download from are tried, and only after a failure.
 *
 * Invariants: each probe ends within `timeoutMs`; a probe never reads a response (opaque); the result
 * has one state per host given.
 */
import type { HostState } from './load-diagnosis';

/** CSP violations seen by this document, by blocked host (recorded from start, so none is missed). */
const refused = new Set<string>();
let listening = false;

/** Starts recording CSP violations (the page calls it at start; later calls do nothing). */
export function recordCspViolations(target: Document = document): void {
  if (listening) return;
  listening = true;
  target.addEventListener('securitypolicyviolation', (e) => {
    try {
      refused.add(new URL(e.blockedURI).host);
    } catch {
      // "inline", "eval": not a host
    }
  });
}

export async function probeHosts(hosts: readonly string[], timeoutMs = 8000): Promise<Record<string, HostState>> {
  recordCspViolations();
  const states = await Promise.all(hosts.map((host) => probe(host, timeoutMs)));
  // A refusal is reported as an event after the fetch rejects: let it arrive.
  await new Promise((resolve) => setTimeout(resolve, 50));
  return Object.fromEntries(hosts.map((host, i) => [host, refused.has(host) ? 'csp' : states[i]!]));
}

async function probe(host: string, timeoutMs: number): Promise<HostState> {
  try {
    await fetch(`https://${host}/`, { mode: 'no-cors', cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer', signal: AbortSignal.timeout(timeoutMs) });
    return 'ok';
  } catch {
    return 'unreachable';
  }
}
