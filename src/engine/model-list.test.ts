import { describe, expect, it } from 'vitest';
import { parseModelList } from './model-list';

const common = { label: 'L', family: 'llama-3.1', toolCalling: true, contextWindow: 4096, sizeBytes: 10, vramMB: 20, requiredFeatures: ['shader-f16'], description: 'd' };
const webllm = { ...common, id: 'w', backend: 'webllm', modelUrl: 'https://h/m/resolve/main/', modelLib: 'https://h/lib.wasm' };
const onnx = { ...common, id: 'o', backend: 'onnx', path: 'micro', dtype: 'fp32', demo: true, sampling: { temperature: 0 } };

describe('parseModelList', () => {
  it('accepts one entry of each backend, keeping its fields', () => {
    const list = parseModelList([
      webllm,
      onnx,
      { ...common, id: 'g', backend: 'llamacpp', gguf: 'a/b.GGUF' },
      { ...common, id: 'r', backend: 'remote', url: 'http://h:8000', serverModel: 'm', sizeBytes: 0, vramMB: 0 },
    ]);
    expect(list).toEqual([
      webllm,
      onnx,
      { ...common, id: 'g', backend: 'llamacpp', gguf: 'a/b.GGUF' },
      { ...common, id: 'r', backend: 'remote', url: 'http://h:8000', serverModel: 'm', sizeBytes: 0, vramMB: 0 },
    ]);
  });

  const bad: Array<[string, unknown, string]> = [
    ['not an array', {}, 'models.json: expected an array of model entries'],
    ['an entry that is not an object', [null], 'models.json[0]: expected an object'],
    ['a missing id (no id in the message)', [{ ...webllm, id: undefined }], 'models.json[0].id: expected a non-empty string'],
    ['an empty label', [{ ...webllm, label: '' }], 'models.json[0] (w).label: expected a non-empty string'],
    ['a missing description', [{ ...webllm, description: undefined }], 'models.json[0] (w).description: expected a non-empty string'],
    ['a context of 0', [{ ...webllm, contextWindow: 0 }], 'models.json[0] (w).contextWindow: expected a positive number'],
    ['an infinite context', [{ ...webllm, contextWindow: Infinity }], 'models.json[0] (w).contextWindow: expected a positive number'],
    ['a size that is text', [{ ...webllm, sizeBytes: '1' }], 'models.json[0] (w).sizeBytes: expected a positive number'],
    ['a negative memory', [{ ...webllm, vramMB: -1 }], 'models.json[0] (w).vramMB: expected a positive number'],
    ['an unknown family', [{ ...webllm, family: 'gpt' }], 'models.json[0] (w).family: expected one of llama-3.1, llama-3.2, llama-3.0, micro, test'],
    ['toolCalling as text', [{ ...webllm, toolCalling: 'yes' }], 'models.json[0] (w).toolCalling: expected true or false'],
    ['features that are not names', [{ ...webllm, requiredFeatures: ['a', 1] }], 'models.json[0] (w).requiredFeatures: expected an array of WebGPU feature names'],
    ['a web-llm entry without its library', [{ ...webllm, modelLib: undefined }], 'models.json[0] (w).modelLib: expected a non-empty string'],
    ['a web-llm URL not ending in /resolve/main/', [{ ...webllm, modelUrl: 'https://h/m' }], 'models.json[0] (w).modelUrl: must end with /resolve/main/ (web-llm builds file URLs from it)'],
    ['an onnx entry without its folder', [{ ...onnx, path: '' }], 'models.json[0] (o).path: expected a non-empty string'],
    ['an onnx entry with an unknown dtype', [{ ...onnx, dtype: 'int3' }], 'models.json[0] (o).dtype: expected one of fp32, fp16, q4, q4f16, q8'],
    ['a server entry with an empty model name', [{ ...common, id: 'r', backend: 'remote', url: 'http://h', serverModel: '' }], 'models.json[0] (r).serverModel: expected a non-empty string'],
    ['a Llama 3.0 entry that claims tool calling', [{ ...webllm, family: 'llama-3.0' }], 'models.json[0] (w).toolCalling: Llama 3.0 checkpoints were not trained on the tool format'],
    ['sampling that is a list', [{ ...onnx, sampling: [] }], 'models.json[0] (o).sampling: expected an object of sampling settings'],
    ['a duplicate id', [webllm, { ...onnx, id: 'w' }], 'models.json[1] (w).id: duplicate id'],
  ];
  it.each(bad)('refuses %s, naming the entry and field', (_, value, message) => {
    expect(() => parseModelList(value)).toThrow(new Error(message));
  });
});
