/**
 * The model list is data (models/models.json), validated on load: a bad entry is an error naming
 * the entry and field, never a model that half-works.
 */
import type { BackendKind, SamplingParams } from './contract';
import { checkServerUrl } from './model-source';

export interface ModelEntry {
  id: string;
  label: string;
  backend: BackendKind;
  /**
   * llama-3.1 / llama-3.2 are tuned for the tool format; llama-3.0 has the tokens but not the training;
   * micro is this project's own micro Llama, trained on its synthetic tool transcripts.
   */
  family: 'llama-3.1' | 'llama-3.2' | 'llama-3.0' | 'micro' | 'test';
  /** Trained on Llama 3.1's tool format (eom_id, python_tag, the ipython role). */
  toolCalling: boolean;
  contextWindow: number;
  /** Download size. */
  sizeBytes: number;
  /** Estimated GPU memory in use, MB. */
  vramMB: number;
  /** WebGPU features the weights need, e.g. "shader-f16" for q4f16 kernels. */
  requiredFeatures: string[];
  description: string;
  /** A random-weight model for tests: selectable, labeled, never recommended. */
  test?: boolean;
  /** A trained micro model of this project's synthetic world: works anywhere, knows little. */
  demo?: boolean;
  /** webllm: weights URL (ends with /resolve/main/) and the compiled model library URL. */
  modelUrl?: string;
  modelLib?: string;
  /** onnx: folder under the models base URL (or a hub id when remote) and weight dtype. */
  path?: string;
  dtype?: 'fp32' | 'fp16' | 'q4' | 'q4f16' | 'q8';
  /** onnx: loaded from the public model hub rather than the local models folder. */
  remote?: boolean;
  /** llamacpp (Node only): the GGUF file, absolute or relative to the models folder. */
  gguf?: string;
  /** remote: the engine server's base URL (http(s), or a path on the page's site such as /api/engine/). */
  url?: string;
  /** remote: the model's name on a server that serves several (vLLM needs it; llama-server takes any). */
  serverModel?: string;
  /** Sampling this model needs, over the user's defaults (the micro model is greedy: {"temperature": 0}). */
  sampling?: SamplingParams;
}

const FAMILIES = new Set(['llama-3.1', 'llama-3.2', 'llama-3.0', 'micro', 'test']);
const DTYPES = new Set(['fp32', 'fp16', 'q4', 'q4f16', 'q8']);
const BACKENDS = new Set(['webllm', 'onnx', 'llamacpp', 'remote']);

/** Validates a parsed models.json; throws an Error naming the first bad entry and field. */
export function parseModelList(value: unknown): ModelEntry[] {
  if (!Array.isArray(value)) throw new Error('models.json: expected an array of model entries');
  const seen = new Set<string>();
  return value.map((raw, i) => {
    const where = `models.json[${i}]`;
    if (typeof raw !== 'object' || raw === null) throw new Error(`${where}: expected an object`);
    const e = raw as Record<string, unknown>;
    const fail = (field: string, rule: string): never => {
      throw new Error(`${where}${typeof e.id === 'string' ? ` (${e.id})` : ''}.${field}: ${rule}`);
    };
    const str = (f: string) => (typeof e[f] === 'string' && e[f] !== '') || fail(f, 'expected a non-empty string');
    const num = (f: string) => (typeof e[f] === 'number' && Number.isFinite(e[f]) && (e[f] as number) > 0) || fail(f, 'expected a positive number');
    ['id', 'label', 'description'].forEach(str);
    num('contextWindow');
    if (!BACKENDS.has(e.backend as string)) fail('backend', `expected one of ${[...BACKENDS].map((b) => `"${b}"`).join(', ')}`);
    // A server's model is not downloaded to the page: its size and memory may be 0 (unknown).
    if (e.backend === 'remote') ['sizeBytes', 'vramMB'].forEach((f) => (typeof e[f] === 'number' && (e[f] as number) >= 0) || fail(f, 'expected a number ≥ 0'));
    else ['sizeBytes', 'vramMB'].forEach(num);
    if (!FAMILIES.has(e.family as string)) fail('family', `expected one of ${[...FAMILIES].join(', ')}`);
    if (typeof e.toolCalling !== 'boolean') fail('toolCalling', 'expected true or false');
    if (!Array.isArray(e.requiredFeatures) || !e.requiredFeatures.every((f) => typeof f === 'string')) {
      fail('requiredFeatures', 'expected an array of WebGPU feature names');
    }
    if (e.backend === 'webllm') {
      str('modelUrl');
      str('modelLib');
      if (!/\/resolve\/main\/$/.test(e.modelUrl as string)) fail('modelUrl', 'must end with /resolve/main/ (web-llm builds file URLs from it)');
    } else if (e.backend === 'onnx') {
      str('path');
      if (!DTYPES.has(e.dtype as string)) fail('dtype', `expected one of ${[...DTYPES].join(', ')}`);
    } else if (e.backend === 'llamacpp') {
      str('gguf');
      if (!/\.gguf$/i.test(e.gguf as string)) fail('gguf', 'expected the path of a .gguf file');
    } else {
      str('url');
      try {
        checkServerUrl(e.url as string);
      } catch (err) {
        fail('url', (err as Error).message);
      }
      if (e.serverModel !== undefined) str('serverModel');
    }
    if (e.family === 'llama-3.0' && e.toolCalling) fail('toolCalling', 'Llama 3.0 checkpoints were not trained on the tool format');
    if (e.sampling !== undefined && (typeof e.sampling !== 'object' || e.sampling === null || Array.isArray(e.sampling))) {
      fail('sampling', 'expected an object of sampling settings');
    }
    if (seen.has(e.id as string)) fail('id', 'duplicate id');
    seen.add(e.id as string);
    return raw as ModelEntry;
  });
}

export function findModel(list: readonly ModelEntry[], id: string): ModelEntry | undefined {
  return list.find((m) => m.id === id);
}
