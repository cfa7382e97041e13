/**
 * The browser's copies of downloaded models (Cache Storage, shared by the page and the engine
 * worker): what is cached, how big, and deleting it. web-llm keeps weights, configs and compiled
 * libraries in `webllm/*` caches keyed by URL; transformers.js keeps hub files in
 * `transformers-cache`. Models that share weights (the 1k-context variants) share one entry.
 *
 * Invariants: a cached URL belongs to at most one entry; deleting an entry removes exactly the URLs
 * listed under it; without Cache Storage (an insecure context) the list is empty and nothing throws.
 */
import type { ModelEntry } from '../engine/model-list';

export const MODEL_CACHE_NAMES = ['webllm/model', 'webllm/config', 'webllm/wasm', 'transformers-cache'] as const;

export interface CachedModel {
  /** The weights' base URL: the entry's identity. */
  key: string;
  /** The models of the list that use these weights. */
  labels: string[];
  bytes: number;
  files: number;
}

interface Group {
  key: string;
  prefixes: string[];
  labels: string[];
}

/** URL prefixes of a model's files: public URLs and local copies under modelsBaseUrl. */
function groupsOf(models: readonly ModelEntry[], modelsBaseUrl: string): Group[] {
  const groups = new Map<string, Group>();
  for (const m of models) {
    let key: string;
    let prefixes: string[];
    if (m.backend === 'webllm') {
      key = m.modelUrl;
      prefixes = [m.modelUrl, m.modelLib, `${modelsBaseUrl}${m.id}/`];
    } else if (m.backend === 'onnx') {
      key = m.remote ? `https://huggingface.co/${m.path}/` : `${modelsBaseUrl}${m.path}/`;
      prefixes = [key, `${modelsBaseUrl}${m.path}/`];
    } else continue;
    const g = groups.get(key) ?? { key, prefixes: [], labels: [] };
    g.prefixes.push(...prefixes.filter((p) => !g.prefixes.includes(p)));
    g.labels.push(m.label);
    groups.set(key, g);
  }
  return [...groups.values()];
}

function cacheStorage(): CacheStorage | null {
  try {
    return typeof caches === 'undefined' ? null : caches;
  } catch {
    return null;
  }
}

async function eachCachedRequest(visit: (cache: Cache, request: Request) => Promise<void>): Promise<void> {
  const storage = cacheStorage();
  if (!storage) return;
  for (const name of MODEL_CACHE_NAMES) {
    if (!(await storage.has(name).catch(() => false))) continue;
    const cache = await storage.open(name);
    for (const request of await cache.keys()) await visit(cache, request);
  }
}

async function responseSize(response: Response | undefined): Promise<number> {
  if (!response) return 0;
  const header = Number(response.headers.get('content-length'));
  if (Number.isFinite(header) && header > 0) return header;
  return (await response.blob()).size;
}

export async function listCachedModels(models: readonly ModelEntry[], modelsBaseUrl: string): Promise<CachedModel[]> {
  const groups = groupsOf(models, modelsBaseUrl);
  const found = new Map<string, CachedModel>();
  await eachCachedRequest(async (cache, request) => {
    const g = groups.find((x) => x.prefixes.some((p) => request.url.startsWith(p)));
    if (!g) return;
    const entry = found.get(g.key) ?? { key: g.key, labels: g.labels, bytes: 0, files: 0 };
    entry.bytes += await responseSize(await cache.match(request));
    entry.files++;
    found.set(g.key, entry);
  });
  return [...found.values()];
}

/** Deletes every cached file of the entry `key`; resolves to the number of files removed. */
export async function deleteCachedModel(models: readonly ModelEntry[], modelsBaseUrl: string, key: string): Promise<number> {
  const group = groupsOf(models, modelsBaseUrl).find((g) => g.key === key);
  if (!group) return 0;
  let removed = 0;
  await eachCachedRequest(async (cache, request) => {
    if (group.prefixes.some((p) => request.url.startsWith(p)) && (await cache.delete(request))) removed++;
  });
  return removed;
}

/** The ids of models with cached files (to mark them in the picker). */
export function cachedModelIds(models: readonly ModelEntry[], cached: readonly CachedModel[], modelsBaseUrl: string): Set<string> {
  const keys = new Set(cached.map((c) => c.key));
  const ids = new Set<string>();
  for (const g of groupsOf(models, modelsBaseUrl)) {
    if (!keys.has(g.key)) continue;
    for (const m of models) if (g.labels.includes(m.label)) ids.add(m.id);
  }
  return ids;
}

/** A model counts as cached once this share of its download size is in the cache (an interrupted download is not). */
export const COMPLETE_SHARE = 0.9;

/**
 * The ids of models whose files are (nearly) all cached: loading them downloads nothing, so the page
 * neither asks before it nor holds back the automatic reload of the last model.
 */
export function completeCachedIds(models: readonly ModelEntry[], cached: readonly CachedModel[], modelsBaseUrl: string): Set<string> {
  const ids = cachedModelIds(models, cached, modelsBaseUrl);
  const bytesOf = (m: ModelEntry) => cached.find((c) => c.labels.includes(m.label))?.bytes ?? 0;
  return new Set(models.filter((m) => ids.has(m.id) && bytesOf(m) >= m.sizeBytes * COMPLETE_SHARE).map((m) => m.id));
}
