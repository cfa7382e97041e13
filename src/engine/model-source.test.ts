import { describe, expect, it } from 'vitest';
import { assessModel } from './model-fit';
import { parseModelList } from './model-list';
import { entryForRef, LLAMA_31_CONTEXT, parseModelSource, sourceEntry } from './model-source';

const NO_GPU = { webgpu: false, shaderF16: false, adapter: null, limits: null };

describe('parseModelSource (a model the user names, arriving as data)', () => {
  it('keeps a clean copy of a GGUF path and of a server (URL, model name)', () => {
    expect(parseModelSource({ kind: 'gguf', path: ' /m/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf ', extra: 1 })).toEqual({ kind: 'gguf', path: '/m/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf' });
    expect(parseModelSource({ kind: 'server', url: 'https://gpu.example:8000/v1', model: ' meta-llama/Llama-3.1-70B-Instruct ' })).toEqual({
      kind: 'server',
      url: 'https://gpu.example:8000/v1',
      model: 'meta-llama/Llama-3.1-70B-Instruct',
    });
    expect(parseModelSource({ kind: 'server', url: '/api/engine/', model: '' })).toEqual({ kind: 'server', url: '/api/engine/' });
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ['not an object', 'llama.gguf', /must be \{kind: "gguf"/],
    ['an unknown kind', { kind: 'hub', id: 'x' }, /unknown model source kind "hub"/],
    ['a path that is not a .gguf file', { kind: 'gguf', path: '/etc/passwd' }, /path of a \.gguf file/],
    ['a NUL in the path', { kind: 'gguf', path: 'a\0.gguf' }, /path of a \.gguf file/],
    ['no URL', { kind: 'server' }, /needs a URL/],
    ['not a URL', { kind: 'server', url: 'localhost 8080' }, /is not a URL: write http:\/\/host:port/],
    ['another scheme', { kind: 'server', url: 'file:///etc/passwd' }, /http or https, not file:/],
    ['credentials in the URL (a page must never hold them)', { kind: 'server', url: 'https://me:sk-123@gpu.example/' }, /user name or password: set the API key in the environment \(LLAMA_ENGINE_API_KEY\)/],
    ['a query (a key would hide there)', { kind: 'server', url: 'https://gpu.example/?api_key=sk-1' }, /query or fragment/],
    ['a protocol-relative URL', { kind: 'server', url: '//gpu.example/v1' }, /is not a URL/],
    ['a model name with control characters', { kind: 'server', url: 'http://h:1', model: 'a\nb' }, /must be text/],
    ['a model name that is a number', { kind: 'server', url: 'http://h:1', model: 7 }, /^the served model name must be text$/],
    ['a GGUF source without its path', { kind: 'gguf' }, /^a GGUF model needs the path of a \.gguf file, got undefined$/],
    ['a path that is a number', { kind: 'gguf', path: 7 }, /^a GGUF model needs the path of a \.gguf file, got 7$/],
    ['no kind', { path: 'a.gguf' }, /^unknown model source kind undefined: use "gguf" or "server"$/],
    ['null', null, /^a model source must be \{kind: "gguf", path\} or \{kind: "server", url, model\?\}$/],
  ];
  it.each(bad)('refuses %s with an invalid_request in words', (_, value, message) => {
    expect(() => parseModelSource(value)).toThrow(expect.objectContaining({ name: 'EngineError', code: 'invalid_request', message: expect.stringMatching(message) }));
  });
});

describe('the entry a load serves', () => {
  it('a user’s GGUF: Llama 3.1 with the tool format, named by its file, the context left to its runtime', () => {
    expect(sourceEntry({ kind: 'gguf', path: '/models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf' })).toMatchObject({
      id: 'Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf',
      backend: 'llamacpp',
      gguf: '/models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf',
      family: 'llama-3.1',
      toolCalling: true,
      contextWindow: LLAMA_31_CONTEXT,
    });
  });

  it('a server: by its model name, else its URL', () => {
    expect(sourceEntry({ kind: 'server', url: 'http://h:8000', model: 'm' })).toMatchObject({ id: 'm', backend: 'remote', url: 'http://h:8000', serverModel: 'm' });
    expect(sourceEntry({ kind: 'server', url: 'http://h:8000' })).not.toHaveProperty('serverModel');
  });

  it('an id is looked up (unknown_model otherwise); a source is checked first', () => {
    const list = parseModelList([]);
    expect(() => entryForRef('nope', (id) => list.find((m) => m.id === id))).toThrow(expect.objectContaining({ code: 'unknown_model' }));
    expect(() => entryForRef({ kind: 'server', url: 'ftp://x' } as never, () => undefined)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });
});

describe('models.json entries of the new kinds', () => {
  const base = { label: 'L', family: 'llama-3.1', toolCalling: true, contextWindow: 32768, requiredFeatures: [], description: 'd' };
  it('a server entry (no download size) and a GGUF entry are valid; the page runs the first, never the second', () => {
    const [server, gguf] = parseModelList([
      { ...base, id: 'team-70b', backend: 'remote', url: '/api/engine/', serverModel: 'meta-llama/Llama-3.1-70B-Instruct', sizeBytes: 0, vramMB: 0 },
      { ...base, id: 'local-8b', backend: 'llamacpp', gguf: 'llama-8b/model-q4_k_m.gguf', sizeBytes: 4.9e9, vramMB: 5000 },
    ]);
    expect(assessModel(server!, NO_GPU)).toMatchObject({ status: 'ok', reason: expect.stringMatching(/engine server/) });
    expect(assessModel(gguf!, NO_GPU)).toMatchObject({ status: 'no', reason: expect.stringMatching(/node-llama-cpp in Node/) });
  });

  const bad: Array<[string, Record<string, unknown>, RegExp]> = [
    ['an unknown backend', { backend: 'ollama' }, /backend: expected one of "webllm", "onnx", "llamacpp", "remote"/],
    ['a GGUF entry without its file', { backend: 'llamacpp', sizeBytes: 1, vramMB: 1 }, /\.gguf: expected a non-empty string/],
    ['a GGUF entry naming another file', { backend: 'llamacpp', gguf: 'model.bin', sizeBytes: 1, vramMB: 1 }, /\.gguf: expected the path of a \.gguf file/],
    ['a server entry without its URL', { backend: 'remote', sizeBytes: 0, vramMB: 0 }, /\.url: expected a non-empty string/],
    ['a server entry with credentials in its URL', { backend: 'remote', url: 'https://u:p@h/', sizeBytes: 0, vramMB: 0 }, /\.url: .*user name or password/],
    ['a server entry with a negative size', { backend: 'remote', url: 'http://h:1', sizeBytes: -1, vramMB: 0 }, /\.sizeBytes: expected a number ≥ 0/],
    ['a GGUF entry of size 0', { backend: 'llamacpp', gguf: 'a.gguf', sizeBytes: 0, vramMB: 1 }, /\.sizeBytes: expected a positive number/],
  ];
  it.each(bad)('refuses %s, naming the entry and field', (_, fields, message) => {
    expect(() => parseModelList([{ ...base, id: 'x', ...fields }])).toThrow(message);
  });
});
