import { InferenceSession, Tensor } from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { OnnxGraph } from './onnx-graph';

describe('OnnxGraph', () => {
  it('serializes a model onnxruntime runs, with typed attributes and deduplicated constants', async () => {
    const g = new OnnxGraph();
    const x = g.input('x', 'float32', ['n', 3]);
    const w = g.floatInitializer('w', Float32Array.of(1, 2, 3, 4, 5, 6), [2, 3]);
    expect(g.constInt64([0])).toBe(g.constInt64([0]));
    expect(g.constInt64([0])).not.toBe(g.constFloat([0]));
    const y = g.op('Gemm', [x, w], { transB: { int: 1 }, alpha: { float: 0.5 } });
    g.op('ReduceMean', [y], { axes: { ints: [-1] }, keepdims: { int: 0 } }, 'out');
    g.output('out', 'float32', ['n']);
    const session = await InferenceSession.create(g.encode({ name: 't', opset: 17 }));
    const { out } = await session.run({ x: new Tensor('float32', Float32Array.of(1, 0, 0, 0, 1, 1), [2, 3]) });
    // rows: 0.5·[1, 4] and 0.5·[5, 11]; means 1.25 and 4.
    expect(Array.from(out!.data as Float32Array)).toEqual([1.25, 4]);
    expect(out!.dims).toEqual([2]);
    await session.release();
  });

  const misuse: Record<string, (g: OnnxGraph) => unknown> = {
    'duplicate input name': (g) => g.input('a', 'int64', [1]) && g.input('a', 'int64', [1]),
    'undefined node input': (g) => g.op('Neg', ['nope']),
    'output not produced': (g) => g.output('missing', 'float32', [1]),
    'initializer size mismatch': (g) => g.floatInitializer('w', new Float32Array(5), [2, 3]),
    'constant size mismatch': (g) => g.constInt64([1, 2], [3]),
  };
  it.each(Object.entries(misuse))('rejects %s', (_name, f) => {
    expect(() => f(new OnnxGraph())).toThrow(/onnx graph/);
  });
});
