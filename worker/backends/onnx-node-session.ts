/**
 * Node only: opens a local ONNX model folder with onnxruntime-node directly. transformers.js's
 * from_pretrained, in Node, wraps every local file in a response whose constructor starts streaming
 * the whole file into memory with nothing to consume it: model.onnx was read twice more, ~97 MB
 * buffered for the micro model, still reading two seconds after the load resolved (checked with strace)
 * — time and memory taken from the first generations. The session here reads the file once.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InferenceSession } from 'onnxruntime-node';
import type { ModelConfig, NodeSession } from './onnx-local-open';

/** transformers.js's file suffix per weight dtype (its DEFAULT_DTYPE_SUFFIX_MAPPING). */
const SUFFIX: Record<string, string> = { fp32: '', fp16: '_fp16', q8: '_quantized', q4: '_q4', q4f16: '_q4f16' };


export async function openNodeSession(dir: string, dtype: string): Promise<NodeSession> {
  const suffix = SUFFIX[dtype];
  if (suffix === undefined) throw new Error(`no ONNX file name for dtype ${dtype}`);
  const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as ModelConfig;
  const session = await InferenceSession.create(join(dir, 'onnx', `model${suffix}.onnx`), { executionProviders: ['cpu'] });
  return { session: session as unknown as NodeSession['session'], config, release: () => session.release() };
}
