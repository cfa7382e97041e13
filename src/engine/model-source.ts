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
import * as v from 'valibot';
import { fields, parseFirst, throwsNot } from '../parse/fields';
import type { ModelRef, ModelSource } from './contract';
import { EngineError } from './errors';
import type { ModelEntry } from './model-list';
import { checkServerUrl } from './server-url';

/** Llama 3.1's context; a user's model gets what its runtime gives a sequence, at most this. */
export const LLAMA_31_CONTEXT = 131_072;

const invalid = (message: string): never => {
  throw new EngineError('invalid_request', message);
};

const GGUF_PATH = (issue: v.BaseIssue<unknown>) => `a GGUF model needs the path of a .gguf file, got ${JSON.stringify(issue.input)}`;
const MODEL_NAME = 'the served model name must be text';
const NOT_A_SOURCE = 'a model source must be {kind: "gguf", path} or {kind: "server", url, model?}';

const ggufSource = fields(
  {
    kind: v.literal('gguf'),
    path: v.pipe(
      v.string(GGUF_PATH),
      v.check((path) => /\.gguf$/i.test(path.trim()) && !path.includes('\0'), GGUF_PATH),
      v.trim(),
    ),
  },
  NOT_A_SOURCE,
);

const serverSource = v.pipe(
  fields(
    {
      kind: v.literal('server'),
      url: v.pipe(v.string('an engine server needs a URL'), throwsNot(checkServerUrl), v.trim()),
      model: v.optional(v.pipe(v.string(MODEL_NAME), v.regex(/^[^\u0000-\u001f]*$/, MODEL_NAME), v.trim())),
    },
    NOT_A_SOURCE,
  ),
  v.transform(({ url, model }) => ({ kind: 'server' as const, url, ...(model ? { model } : {}) })),
);

const modelSourceSchema: v.GenericSchema<unknown, ModelSource> = v.pipe(
  v.custom<object>((value) => typeof value === 'object' && value !== null, NOT_A_SOURCE),
  v.variant('kind', [ggufSource, serverSource], (issue) => `unknown model source kind ${JSON.stringify(issue.input)}: use "gguf" or "server"`),
);

/** Checks a ModelSource that came in as data; returns a clean copy (trimmed, unknown fields dropped). */
export function parseModelSource(value: unknown): ModelSource {
  const parsed = parseFirst(modelSourceSchema, value);
  if (!parsed.ok) return invalid(parsed.issue.message);
  return parsed.value;
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
