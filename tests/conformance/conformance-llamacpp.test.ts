/**
 * The backend conformance suite on llama.cpp, twice, both on the micro model's F32 GGUF and loaded
 * the way a user names them (a ModelSource through the Node engine's own factory, made failable):
 * a real llama-server through the remote SamplingBackend (it samples; its cache is its own), and
 * node-llama-cpp as a LogitsBackend (our sampler and prefix cache; it rolls back).
 */
import { afterAll, beforeAll } from 'vitest';
import { ggufPath } from '../../scripts/setup/gguf-models';
import type { ModelSource } from '../../src/engine/contract';
import { nodeBackendFactory } from '../../worker/create-node-engine';
import { Engine } from '../../worker/engine';
import { nodeGrammars } from '../../worker/grammar/node-grammars';
import { startLlamaServer, type LlamaServer } from '../support/llama-server';
import type { ConformanceSubject } from './backend-checks';
import { describeConformance } from './describe-conformance';
import { failableFactory } from './failable';

const NO_GPU = async () => ({ webgpu: false, shaderF16: false, adapter: null, limits: null });
let server: LlamaServer;
const engines: Engine[] = [];

beforeAll(async () => {
  // No host-memory prompt cache (--cache-ram 0): by default llama-server keeps older prompts' states
  // and restores the best match (and says so), so "a prompt whose first id differs" would not give
  // the suite's reference, a run from an empty cache.
  server = await startLlamaServer({ args: ['--cache-ram', '0'] });
});
afterAll(async () => {
  await Promise.all(engines.map((e) => e.unload()));
  await server?.stop();
});

async function subjectOf(source: () => ModelSource, extra: Omit<ConformanceSubject, 'engine' | 'failNext'>): Promise<ConformanceSubject> {
  const factory = failableFactory(nodeBackendFactory({ llamaCppThreads: 1 }));
  const engine = new Engine({ models: [], createBackend: factory.create, capabilities: NO_GPU, grammars: nodeGrammars() });
  engines.push(engine);
  await engine.load(source());
  return { engine, failNext: () => factory.last().failNext(), ...extra };
}

const SUBJECTS: Record<string, () => Promise<ConformanceSubject>> = {
  'remote backend, a real llama-server, micro GGUF': () =>
    subjectOf(() => ({ kind: 'server', url: server.url }), { kind: 'sampling', canTruncate: false, failureKeepsFarCache: true }),
  'llamacpp backend, node-llama-cpp, micro GGUF': () =>
    subjectOf(() => ({ kind: 'gguf', path: ggufPath('micro-llama', 'F32') }), { kind: 'logits', canTruncate: true }),
};

describeConformance(SUBJECTS);
