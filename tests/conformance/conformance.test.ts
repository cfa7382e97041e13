/**
 * The backend conformance suite in Node: the in-memory fakes of both kinds (and a logits fake that
 * cannot roll back, as web-llm cannot), and the real onnx backend on onnxruntime-node with the tiny
 * model. The browser runs the same checks on WASM and WebGPU (tests/browser/conformance*.browser.test.ts).
 */
import { MODELS } from '../../src/engine/models';
import { createOnnxBackend } from '../../worker/backends/onnx-backend';
import { Engine } from '../../worker/engine';
import { nodeGrammars } from '../../worker/grammar/node-grammars';
import type { Backend } from '../../worker/backends/backend';
import { FakeLogitsBackend, FakeSamplingBackend, type FailureSwitch } from '../fakes/fake-backends';
import type { ConformanceSubject } from './backend-checks';
import { describeConformance } from './describe-conformance';
import { failableFactory } from './failable';
import { join } from 'node:path';

const NO_GPU = async () => ({ webgpu: false, shaderF16: false, adapter: null, limits: null });

async function subjectOf(backend: Backend & FailureSwitch, canTruncate: boolean): Promise<ConformanceSubject> {
  const engine = new Engine({ models: MODELS, createBackend: async () => backend, capabilities: NO_GPU, grammars: nodeGrammars() });
  await engine.load('tiny-llama');
  return { engine, kind: backend.kind, canTruncate, failNext: () => backend.failNext() };
}

const SUBJECTS: Record<string, () => Promise<ConformanceSubject>> = {
  'fake logits backend': () => subjectOf(new FakeLogitsBackend(), true),
  'fake logits backend without rollback (as web-llm)': () => subjectOf(new FakeLogitsBackend({ truncate: false }), false),
  'fake logits backend handing over its largest logits (as llama.cpp)': () => subjectOf(new FakeLogitsBackend({ topLogits: 16 }), true),
  'fake sampling backend': () => subjectOf(new FakeSamplingBackend(), false),
  'onnx backend, onnxruntime-node, tiny model': async () => {
    const factory = failableFactory((ctx) => createOnnxBackend(ctx, { localModelPath: `${join(import.meta.dirname, '../../models')}/`, allowRemote: false }));
    const engine = new Engine({ models: MODELS, createBackend: factory.create, capabilities: NO_GPU, grammars: nodeGrammars() });
    await engine.load('tiny-llama');
    return { engine, kind: 'logits', canTruncate: true, failNext: () => factory.last().failNext() };
  },
};

describeConformance(SUBJECTS);
