/**
 * The model list is data (models/models.json), validated on load: a bad entry is an error naming
 * the entry and field, never a model that half-works. An entry's shape depends on its backend, so
 * each backend's own fields are required where that backend is named.
 */
import * as v from 'valibot';
import type { SamplingParams } from './contract';
import { fields, missingAsField, nonEmptyText, parseFirst, plainObject, throwsNot } from '../parse/fields';
import { checkServerUrl } from './server-url';

const FAMILIES = ['llama-3.1', 'llama-3.2', 'llama-3.0', 'micro', 'test'] as const;
const DTYPES = ['fp32', 'fp16', 'q4', 'q4f16', 'q8'] as const;
const BACKENDS = ['webllm', 'onnx', 'llamacpp', 'remote'] as const;

const text = nonEmptyText('expected a non-empty string');
const positive = v.pipe(v.number('expected a positive number'), v.finite('expected a positive number'), v.gtValue(0, 'expected a positive number'));
const flag = v.optional(v.boolean('expected true or false'));

/** Checked before the backend, so an entry's first problem is reported in the order a reader scans it. */
const headEntries = { id: text, label: text, description: text, contextWindow: positive };
const head = v.looseObject(headEntries, missingAsField(headEntries, 'expected an object'));

const common = {
  id: text,
  label: text,
  description: text,
  /** Tokens the model attends to. */
  contextWindow: positive,
  /** Download size. */
  sizeBytes: positive,
  /** Estimated GPU memory in use, MB. */
  vramMB: positive,
  /**
   * llama-3.1 / llama-3.2 are tuned for the tool format; llama-3.0 has the tokens but not the training;
   * micro is this project's own micro Llama, trained on its synthetic tool transcripts.
   */
  family: v.picklist(FAMILIES, `expected one of ${FAMILIES.join(', ')}`),
  /** Trained on Llama 3.1's tool format (eom_id, python_tag, the ipython role). */
  toolCalling: v.boolean('expected true or false'),
  /** WebGPU features the weights need, e.g. "shader-f16" for q4f16 kernels. */
  requiredFeatures: v.array(v.string('expected an array of WebGPU feature names'), 'expected an array of WebGPU feature names'),
  /** A random-weight model for tests: selectable, labeled, never recommended. */
  test: flag,
  /** A trained micro model of this project's synthetic world: works anywhere, knows little. */
  demo: flag,
  /** Sampling this model needs, over the user's defaults (the micro model is greedy: {"temperature": 0}). */
  sampling: v.optional(plainObject<SamplingParams>('expected an object of sampling settings')),
};

const webllmEntry = fields(
  {
    ...common,
    backend: v.literal('webllm'),
    /** The weights URL; web-llm builds file URLs from it. */
    modelUrl: v.pipe(text, v.regex(/\/resolve\/main\/$/, 'must end with /resolve/main/ (web-llm builds file URLs from it)')),
    /** The compiled model library's URL. */
    modelLib: text,
  },
  'expected an object',
);

const onnxEntry = fields(
  {
    ...common,
    backend: v.literal('onnx'),
    /** The folder under the models base URL (or a hub id when remote). */
    path: text,
    dtype: v.picklist(DTYPES, `expected one of ${DTYPES.join(', ')}`),
    /** Loaded from the public model hub rather than the local models folder. */
    remote: flag,
  },
  'expected an object',
);

/** Node only (node-llama-cpp). */
const llamacppEntry = fields(
  {
    ...common,
    backend: v.literal('llamacpp'),
    /** The GGUF file, absolute or relative to the models folder. */
    gguf: v.pipe(text, v.regex(/\.gguf$/i, 'expected the path of a .gguf file')),
  },
  'expected an object',
);

/** A server's model is not downloaded to the page: its size and memory may be 0 (unknown). */
const unknownSize = v.pipe(v.number('expected a number ≥ 0'), v.minValue(0, 'expected a number ≥ 0'));
const remoteEntry = fields(
  {
    ...common,
    backend: v.literal('remote'),
    sizeBytes: unknownSize,
    vramMB: unknownSize,
    /** The engine server's base URL (http(s), or a path on the page's site such as /api/engine/). */
    url: v.pipe(text, throwsNot(checkServerUrl)),
    /** The model's name on a server that serves several (vLLM needs it; llama-server takes any). */
    serverModel: v.optional(text),
  },
  'expected an object',
);

const modelEntry = v.pipe(
  head,
  v.variant('backend', [webllmEntry, onnxEntry, llamacppEntry, remoteEntry], `expected one of ${BACKENDS.map((b) => `"${b}"`).join(', ')}`),
  v.forward(
    v.check((e) => !(e.family === 'llama-3.0' && e.toolCalling), 'Llama 3.0 checkpoints were not trained on the tool format'),
    ['toolCalling'],
  ),
);

/** One models.json entry: the fields every model has, and its backend's own. */
export type ModelEntry = v.InferOutput<typeof modelEntry>;
export type WebLlmEntry = v.InferOutput<typeof webllmEntry>;
export type OnnxEntry = v.InferOutput<typeof onnxEntry>;
export type LlamaCppEntry = v.InferOutput<typeof llamacppEntry>;
export type RemoteEntry = v.InferOutput<typeof remoteEntry>;

/** Validates a parsed models.json; throws an Error naming the first bad entry and field. */
export function parseModelList(value: unknown): ModelEntry[] {
  if (!Array.isArray(value)) throw new Error('models.json: expected an array of model entries');
  const seen = new Set<string>();
  return value.map((raw: unknown, i) => {
    const id = typeof raw === 'object' && raw !== null && typeof (raw as { id?: unknown }).id === 'string' ? ` (${(raw as { id: string }).id})` : '';
    const fail = (field: string | number | undefined, message: string): never => {
      throw new Error(`models.json[${i}]${field === undefined ? '' : `${id}.${field}`}: ${message}`);
    };
    const parsed = parseFirst(modelEntry, raw);
    if (!parsed.ok) return fail(parsed.issue.path[0], parsed.issue.message);
    if (seen.has(parsed.value.id)) fail('id', 'duplicate id');
    seen.add(parsed.value.id);
    return parsed.value;
  });
}

export function findModel(list: readonly ModelEntry[], id: string): ModelEntry | undefined {
  return list.find((m) => m.id === id);
}
