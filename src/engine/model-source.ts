/**
 * Models the user names at load time instead of picking from models.json: a GGUF file (Node only) or
 * an engine server (vLLM, llama-server). A ModelSource arrives as data — from the page, over
 * postMessage, or from the command line — so the engine checks it where the load lands, and turns
 * it into the ModelEntry it serves. Pure and browser-safe.
 *
 * Invariants: a server URL is http(s) (or a path such as `/api/engine/`, which only a page can
 * resolve), has no user name, password, query or fragment (a page must never hold credentials: the
 * dev/preview server adds the key); a GGUF path names a `.gguf` file. Anything else is an
 * EngineError('invalid_request') that says what to write instead.
 */
import type { ModelRef, ModelSource } from './contract';
import { EngineError } from './errors';
import type { ModelEntry } from './model-list';
import { checkServerUrl } from './server-url';

/** Llama 3.1's context; a user's model gets what its runtime gives a sequence, at most this. */
export const LLAMA_31_CONTEXT = 131_072;

const invalid = (message: string): never => {
  throw new EngineError('invalid_request', message);
};

/** Checks a ModelSource that came in as data; returns a clean copy. */
export function parseModelSource(value: unknown): ModelSource {
  if (typeof value !== 'object' || value === null) return invalid('a model source must be {kind: "gguf", path} or {kind: "server", url, model?}');
  const v = value as Record<string, unknown>;
  if (v.kind === 'gguf') {
    if (typeof v.path !== 'string' || !/\.gguf$/i.test(v.path.trim()) || v.path.includes('\0')) {
      return invalid(`a GGUF model needs the path of a .gguf file, got ${JSON.stringify(v.path)}`);
    }
    return { kind: 'gguf', path: v.path.trim() };
  }
  if (v.kind === 'server') {
    if (typeof v.url !== 'string') return invalid('an engine server needs a URL');
    const url = checkServerUrl(v.url);
    if (v.model !== undefined && (typeof v.model !== 'string' || /[\u0000-\u001f]/.test(v.model))) {
      return invalid('the served model name must be text');
    }
    const model = typeof v.model === 'string' ? v.model.trim() : '';
    return { kind: 'server', url, ...(model ? { model } : {}) };
  }
  return invalid(`unknown model source kind ${JSON.stringify(v.kind)}: use "gguf" or "server"`);
}

/** The entry the engine serves for a load: the models.json entry, or one built from a checked source. */
export function entryForRef(ref: ModelRef, find: (id: string) => ModelEntry | undefined): ModelEntry {
  if (typeof ref === 'string') {
    const entry = find(ref);
    if (!entry) throw new EngineError('unknown_model', `no model "${ref}" in models.json`);
    return entry;
  }
  return sourceEntry(parseModelSource(ref));
}

/**
 * What the engine knows of a user's model before its runtime starts: a Llama 3.1 checkpoint (tool
 * format on), Llama 3.1's context (the backend narrows it), no sizes (nothing is downloaded to the page).
 */
export function sourceEntry(source: ModelSource): ModelEntry {
  const common = { family: 'llama-3.1', toolCalling: true, contextWindow: LLAMA_31_CONTEXT, sizeBytes: 0, vramMB: 0 } as const;
  if (source.kind === 'gguf') {
    const name = source.path.split(/[\\/]/).pop()!;
    return { ...common, requiredFeatures: [], id: name, label: name, backend: 'llamacpp', description: `the GGUF file ${source.path}`, gguf: source.path };
  }
  const name = source.model ?? source.url;
  return {
    ...common,
    requiredFeatures: [],
    id: name,
    label: name,
    backend: 'remote',
    description: `the engine server at ${source.url}`,
    url: source.url,
    ...(source.model ? { serverModel: source.model } : {}),
  };
}
