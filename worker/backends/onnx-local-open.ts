/**
 * What a local model opener (onnx-node-session.ts in Node) gives the onnx backend: the session, the
 * model's config and a release. Types only, so the browser's backend can name them without loading Node code.
 */
import type { OrtSession } from './onnx-session';

export interface ModelConfig {
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads?: number;
  head_dim?: number;
  hidden_size: number;
}

export interface NodeSession {
  session: OrtSession & { inputMetadata?: Array<{ name: string; type?: string }> };
  config: ModelConfig;
  release(): Promise<void>;
}
