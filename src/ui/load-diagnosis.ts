/**
 * Why a model did not load, in plain words with the advice that fits: the browser is offline, a host
 * is unreachable (named), this page's Content-Security-Policy blocks a host (named, with the
 * directive), the GPU ran out of memory, the GPU lacks shader-f16 (with the variant to pick), or a
 * download broke off. Network failures are told apart by what the page found when it tried each of
 * the model's hosts itself (host-probe.ts). Pure: the probe results and the online flag come in.
 *
 * Invariants: a network failure never advises a smaller model (the network is the problem); an
 * out-of-memory failure never advises checking the connection; the failing host is named whenever one
 * was found; anything else falls back to error-text.ts's wording for its code.
 */
import type { ModelEntry } from '../engine/model-list';
import { plainError, type PlainError } from './error-text';
import { formatBytes } from './format-units';

export type HostState = 'ok' | 'unreachable' | 'csp';

export interface LoadFailureFacts {
  error: unknown;
  model: ModelEntry | undefined;
  /** What the page saw when it tried each host of the model (host → state); {} when not probed. */
  hosts: Record<string, HostState>;
  online: boolean;
  /** Other models of the list (for the advice: the f16-free variant, something served locally). */
  models: readonly ModelEntry[];
}

export type LoadCause = 'offline' | 'unreachable' | 'csp' | 'network' | 'gpu_memory' | 'shader_f16' | 'other';

export interface LoadDiagnosis extends PlainError {
  cause: LoadCause;
  /** The host that failed, when one was found. */
  host?: string;
}

const NETWORK_MESSAGE = /failed to fetch|networkerror|network error|load failed|net::|err_|fetch|download|connection|timed? ?out/i;

/** True when a load failure looks like the network's (only then are the hosts probed). */
export function isNetworkFailure(error: unknown): boolean {
  const p = plainError(error);
  return p.code === 'load_failed' && NETWORK_MESSAGE.test(p.detail);
}

export function diagnoseLoadFailure(f: LoadFailureFacts): LoadDiagnosis {
  const p = plainError(f.error);
  const label = f.model?.label ?? 'The model';
  const local = f.models.filter((m) => m.test || m.demo).map((m) => m.label);
  const offlineAdvice = local.length > 0 ? ` Models served by this site (${local.join(', ')}) load without any other host.` : '';
  if (p.code === 'shader_f16_unsupported') {
    const variant = f.model && f.models.find((m) => m.family === f.model!.family && m.label !== f.model!.label && m.requiredFeatures.length === 0 && m.contextWindow === f.model!.contextWindow && sameSize(m, f.model!));
    return {
      ...p,
      cause: 'shader_f16',
      title: `This GPU lacks shader-f16, which ${label} needs (16-bit kernels).`,
      advice: variant ? `Pick ${variant.label}: the same model with 32-bit kernels.` : 'Pick a q4f32 variant: it runs without shader-f16.',
    };
  }
  if (p.code === 'insufficient_memory') {
    const need = f.model ? ` (it needs about ${(f.model.vramMB / 1024).toFixed(1)} GB)` : '';
    return {
      ...p,
      cause: 'gpu_memory',
      title: `Not enough GPU memory for ${label}${need}.`,
      advice: 'Close other tabs or apps that use the GPU and press Load again, or pick a smaller model (Llama 3.2 3B or 1B, or a 1k-context variant).',
    };
  }
  if (p.code !== 'load_failed' && p.code !== 'internal') return { ...p, cause: 'other' };
  const hosts = Object.keys(f.hosts);
  if (!f.online) {
    return {
      ...p,
      cause: 'offline',
      title: 'This browser is offline.',
      advice: `${label}'s files come from ${hosts.length ? hosts.join(' and ') : 'this site'}: reconnect and press Load again.${offlineAdvice}`,
    };
  }
  const blocked = hosts.find((h) => f.hosts[h] === 'csp');
  if (blocked) {
    return {
      ...p,
      cause: 'csp',
      host: blocked,
      title: `This page's Content-Security-Policy blocks ${blocked}.`,
      advice: `Its connect-src must allow https://${blocked} for ${label} to download (README: "Embedding under a Content-Security-Policy"); the site's owner can change that.${offlineAdvice}`,
    };
  }
  const down = hosts.find((h) => f.hosts[h] === 'unreachable');
  if (down) {
    return {
      ...p,
      cause: 'unreachable',
      host: down,
      title: `${down} could not be reached.`,
      advice: `${label}'s files come from there. It may be down, or blocked by a firewall, a proxy or a browser extension: try again later or from another network.${offlineAdvice}`,
    };
  }
  if (isNetworkFailure(f.error)) {
    const size = f.model ? ` (${formatBytes(f.model.sizeBytes)})` : '';
    return {
      ...p,
      cause: 'network',
      title: `The download of ${label}${size} broke off.`,
      advice: `${hosts.length ? `${hosts.join(' and ')} answered when the page tried again, so the connection may have dropped for a moment: ` : ''}press Load to try again (what was downloaded is kept).`,
    };
  }
  return { ...p, cause: 'other' };
}

function sameSize(a: ModelEntry, b: ModelEntry): boolean {
  // The f16 and f32 builds of one model differ by a few percent in size.
  return Math.abs(a.sizeBytes - b.sizeBytes) / b.sizeBytes < 0.15;
}
