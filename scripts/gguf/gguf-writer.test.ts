import { gguf, GGUFValueType } from '@huggingface/gguf';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { float16Bytes, float32Bytes } from './float16';
import { GGUF_DEFAULT_ALIGNMENT, writeGguf, type GgufTensor, type GgufValue } from './gguf-writer';

const dir = await mkdtemp(join(tmpdir(), 'gguf-writer-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Writes the file and reads it back with @huggingface/gguf (an independent parser). */
async function roundTrip(metadata: Array<[string, GgufValue]>, tensors: GgufTensor[]) {
  const bytes = writeGguf(metadata, tensors);
  const path = join(dir, `t-${Math.random().toString(36).slice(2)}.gguf`);
  await writeFile(path, bytes);
  return { bytes, parsed: await gguf(path, { allowLocalFile: true, typedMetadata: true }) };
}

describe('writeGguf', () => {
  it('writes every value type and tensor so that @huggingface/gguf reads them back', async () => {
    const vec = Float32Array.of(1.5, -2, 3.25);
    const mat = Float32Array.from({ length: 6 }, (_, i) => i / 4);
    const { bytes, parsed } = await roundTrip(
      [
        ['general.architecture', { type: 'string', value: 'llama' }],
        ['a.u8', { type: 'uint8', value: 200 }],
        ['a.i8', { type: 'int8', value: -100 }],
        ['a.u16', { type: 'uint16', value: 60000 }],
        ['a.i16', { type: 'int16', value: -30000 }],
        ['a.u32', { type: 'uint32', value: 4000000000 }],
        ['a.i32', { type: 'int32', value: -2000000000 }],
        ['a.f32', { type: 'float32', value: 0.5 }],
        ['a.f64', { type: 'float64', value: Math.PI }],
        ['a.bool', { type: 'bool', value: true }],
        ['a.u64', { type: 'uint64', value: 2n ** 40n }],
        ['a.i64', { type: 'int64', value: -(2n ** 40n) }],
        ['a.unicode', { type: 'string', value: 'Ġhello ✓ 日本' }],
        ['a.strings', { type: 'array', itemType: 'string', value: ['x', '', 'Ċ'] }],
        ['a.ints', { type: 'array', itemType: 'int32', value: Int32Array.of(1, -3, 7) }],
      ],
      [
        { name: 'vec', shape: [3], type: 'F32', data: float32Bytes(vec) },
        { name: 'mat', shape: [3, 2], type: 'F16', data: float16Bytes(mat) },
      ],
    );
    const md = parsed.typedMetadata;
    expect(md['a.u8']).toEqual({ type: GGUFValueType.UINT8, value: 200 });
    expect(md['a.i8']).toEqual({ type: GGUFValueType.INT8, value: -100 });
    expect(md['a.u16']).toEqual({ type: GGUFValueType.UINT16, value: 60000 });
    expect(md['a.i16']).toEqual({ type: GGUFValueType.INT16, value: -30000 });
    expect(md['a.u32']).toEqual({ type: GGUFValueType.UINT32, value: 4000000000 });
    expect(md['a.i32']).toEqual({ type: GGUFValueType.INT32, value: -2000000000 });
    expect(md['a.f32']).toEqual({ type: GGUFValueType.FLOAT32, value: 0.5 });
    expect(md['a.f64']).toEqual({ type: GGUFValueType.FLOAT64, value: Math.PI });
    expect(md['a.bool']).toEqual({ type: GGUFValueType.BOOL, value: true });
    expect(md['a.u64']).toEqual({ type: GGUFValueType.UINT64, value: 2n ** 40n });
    expect(md['a.i64']).toEqual({ type: GGUFValueType.INT64, value: -(2n ** 40n) });
    expect(md['a.unicode']?.value).toBe('Ġhello ✓ 日本');
    expect(md['a.strings']).toEqual({ type: GGUFValueType.ARRAY, subType: GGUFValueType.STRING, value: ['x', '', 'Ċ'] });
    expect(md['a.ints']).toEqual({ type: GGUFValueType.ARRAY, subType: GGUFValueType.INT32, value: [1, -3, 7] });
    expect(parsed.metadata.version).toBe(3);
    expect(parsed.metadata.tensor_count).toBe(2n);

    const [t0, t1] = parsed.tensorInfos;
    expect(t0).toMatchObject({ name: 'vec', n_dims: 1, shape: [3n], dtype: 0, offset: 0n });
    expect(t1).toMatchObject({ name: 'mat', n_dims: 2, shape: [3n, 2n], dtype: 1, offset: 32n });
    const start = Number(parsed.tensorDataOffset);
    expect(start % GGUF_DEFAULT_ALIGNMENT).toBe(0);
    expect(new Float32Array(bytes.slice(start, start + 12).buffer)).toEqual(vec);
    expect(bytes.slice(start + 32, start + 44)).toEqual(float16Bytes(mat));
    // Tensor data is padded to the alignment: the file ends at a multiple of 32 after the last tensor.
    expect(bytes.length).toBe(start + 64);
  });

  it('honours general.alignment', async () => {
    const { parsed } = await roundTrip(
      [['general.alignment', { type: 'uint32', value: 64 }]],
      [
        { name: 'a', shape: [1], type: 'F32', data: float32Bytes([1]) },
        { name: 'b', shape: [1], type: 'F32', data: float32Bytes([2]) },
      ],
    );
    expect(parsed.tensorInfos[1]!.offset).toBe(64n);
    expect(Number(parsed.tensorDataOffset) % 64).toBe(0);
  });

  it('is deterministic', () => {
    const args: Parameters<typeof writeGguf> = [[['k', { type: 'string', value: 'v' }]], [{ name: 't', shape: [2], type: 'F32', data: float32Bytes([1, 2]) }]];
    expect(writeGguf(...args)).toEqual(writeGguf(...args));
  });

  it.each([
    ['a duplicate key', [['k', { type: 'uint32', value: 1 }], ['k', { type: 'uint32', value: 2 }]], [], /duplicate key k/],
    ['a duplicate tensor', [], [{ name: 't', shape: [1], type: 'F32', data: float32Bytes([1]) }, { name: 't', shape: [1], type: 'F32', data: float32Bytes([1]) }], /duplicate tensor t/],
    ['data that does not fit the shape', [], [{ name: 't', shape: [3], type: 'F16', data: float16Bytes([1, 2]) }], /has 4 bytes, its shape and type need 6/],
    ['an empty shape', [], [{ name: 't', shape: [], type: 'F32', data: new Uint8Array(0) }], /invalid shape/],
    ['a bad alignment', [['general.alignment', { type: 'uint32', value: 12 }]], [], /alignment must be a positive multiple of 8/],
  ] as Array<[string, Array<[string, GgufValue]>, GgufTensor[], RegExp]>)('rejects %s', (_, metadata, tensors, error) => {
    expect(() => writeGguf(metadata, tensors)).toThrow(error);
  });
});
