/**
 * A GGUF (version 3) writer: header, typed key/values, tensor infos, then the tensor data, every
 * tensor starting on a multiple of the alignment (32 bytes unless `general.alignment` says otherwise).
 * Little-endian throughout. Shapes are in ggml order: `shape[0]` is the contiguous axis, so an HF
 * [rows, cols] matrix is written with shape [cols, rows]. The output depends only on the input.
 */

/** GGUF metadata value types (gguf.md: gguf_metadata_value_type). */
const VALUE_TYPE = {
  uint8: 0, int8: 1, uint16: 2, int16: 3, uint32: 4, int32: 5, float32: 6, bool: 7, string: 8, array: 9, uint64: 10, int64: 11, float64: 12,
} as const;

export type GgufScalarType = Exclude<keyof typeof VALUE_TYPE, 'array'>;

export type GgufValue =
  | { type: Exclude<GgufScalarType, 'string' | 'bool' | 'uint64' | 'int64'>; value: number }
  | { type: 'uint64' | 'int64'; value: bigint }
  | { type: 'string'; value: string }
  | { type: 'bool'; value: boolean }
  | { type: 'array'; itemType: 'string'; value: readonly string[] }
  | { type: 'array'; itemType: Exclude<GgufScalarType, 'string' | 'bool' | 'uint64' | 'int64'>; value: ArrayLike<number> };

/** ggml tensor types this writer emits (ggml.h: GGML_TYPE_F32 = 0, GGML_TYPE_F16 = 1). */
export const GGML_TYPE = { F32: 0, F16: 1 } as const;
export type GgmlType = keyof typeof GGML_TYPE;
const ELEMENT_BYTES: Record<GgmlType, number> = { F32: 4, F16: 2 };

export interface GgufTensor {
  name: string;
  /** ggml order (innermost first). */
  shape: readonly number[];
  type: GgmlType;
  /** Little-endian element bytes: shape's product × the type's width. */
  data: Uint8Array;
}

export const GGUF_DEFAULT_ALIGNMENT = 32;
const MAGIC = 0x46554747; // "GGUF" read as a little-endian uint32

/** Serializes a GGUF file. Throws on duplicate keys or names, and on data that does not match its shape. */
export function writeGguf(metadata: ReadonlyArray<[key: string, value: GgufValue]>, tensors: readonly GgufTensor[]): Uint8Array {
  const keys = new Set<string>();
  for (const [key] of metadata) {
    if (keys.has(key)) throw new Error(`gguf: duplicate key ${key}`);
    keys.add(key);
  }
  const alignEntry = metadata.find(([k]) => k === 'general.alignment')?.[1];
  const alignment = alignEntry?.type === 'uint32' ? alignEntry.value : GGUF_DEFAULT_ALIGNMENT;
  if (!Number.isInteger(alignment) || alignment <= 0 || alignment % 8 !== 0) throw new Error(`gguf: alignment must be a positive multiple of 8, got ${alignment}`);

  const head = new ByteWriter();
  head.u32(MAGIC);
  head.u32(3);
  head.u64(BigInt(tensors.length));
  head.u64(BigInt(metadata.length));
  for (const [key, value] of metadata) {
    head.string(key);
    writeValue(head, value);
  }
  const names = new Set<string>();
  let offset = 0;
  const offsets: number[] = [];
  for (const t of tensors) {
    if (names.has(t.name)) throw new Error(`gguf: duplicate tensor ${t.name}`);
    names.add(t.name);
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (t.shape.length === 0 || t.shape.length > 4 || !t.shape.every((d) => Number.isInteger(d) && d > 0)) {
      throw new Error(`gguf: tensor ${t.name} has an invalid shape [${t.shape.join(', ')}]`);
    }
    if (t.data.byteLength !== count * ELEMENT_BYTES[t.type]) {
      throw new Error(`gguf: tensor ${t.name} has ${t.data.byteLength} bytes, its shape and type need ${count * ELEMENT_BYTES[t.type]}`);
    }
    head.string(t.name);
    head.u32(t.shape.length);
    for (const d of t.shape) head.u64(BigInt(d));
    head.u32(GGML_TYPE[t.type]);
    head.u64(BigInt(offset));
    offsets.push(offset);
    offset = alignUp(offset + t.data.byteLength, alignment);
  }
  const headBytes = head.bytes();
  const dataStart = alignUp(headBytes.length, alignment);
  const out = new Uint8Array(dataStart + offset);
  out.set(headBytes, 0);
  tensors.forEach((t, i) => out.set(t.data, dataStart + offsets[i]!));
  return out;
}

function writeValue(w: ByteWriter, v: GgufValue): void {
  w.u32(VALUE_TYPE[v.type]);
  if (v.type === 'array') {
    w.u32(VALUE_TYPE[v.itemType]);
    w.u64(BigInt(v.value.length));
    if (v.itemType === 'string') for (const s of v.value as readonly string[]) w.string(s);
    else for (let i = 0; i < v.value.length; i++) w.scalar(v.itemType, (v.value as ArrayLike<number>)[i]!);
    return;
  }
  if (v.type === 'string') w.string(v.value);
  else if (v.type === 'bool') w.u8(v.value ? 1 : 0);
  else if (v.type === 'uint64') w.u64(v.value);
  else if (v.type === 'int64') w.i64(v.value);
  else w.scalar(v.type, v.value as number);
}

function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

/** An append-only little-endian byte buffer that grows by doubling. */
class ByteWriter {
  private buf = new Uint8Array(1 << 16);
  private view = new DataView(this.buf.buffer);
  private length = 0;
  private readonly encoder = new TextEncoder();

  /** Makes room for n more bytes and returns where they start; `buf` and `view` may be replaced. */
  private reserve(n: number): number {
    if (this.length + n > this.buf.length) {
      let size = this.buf.length;
      while (size < this.length + n) size *= 2;
      const next = new Uint8Array(size);
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
      this.view = new DataView(next.buffer);
    }
    const at = this.length;
    this.length += n;
    return at;
  }

  u8(v: number): void {
    const at = this.reserve(1);
    this.view.setUint8(at, v);
  }
  u32(v: number): void {
    const at = this.reserve(4);
    this.view.setUint32(at, v, true);
  }
  u64(v: bigint): void {
    const at = this.reserve(8);
    this.view.setBigUint64(at, v, true);
  }
  i64(v: bigint): void {
    const at = this.reserve(8);
    this.view.setBigInt64(at, v, true);
  }
  string(s: string): void {
    const bytes = this.encoder.encode(s);
    this.u64(BigInt(bytes.length));
    const at = this.reserve(bytes.length);
    this.buf.set(bytes, at);
  }
  scalar(type: Exclude<GgufScalarType, 'string' | 'bool' | 'uint64' | 'int64'>, v: number): void {
    const width = { uint8: 1, int8: 1, uint16: 2, int16: 2, uint32: 4, int32: 4, float32: 4, float64: 8 }[type];
    const at = this.reserve(width);
    const view = this.view;
    switch (type) {
      case 'uint8': return view.setUint8(at, v);
      case 'int8': return view.setInt8(at, v);
      case 'uint16': return view.setUint16(at, v, true);
      case 'int16': return view.setInt16(at, v, true);
      case 'uint32': return view.setUint32(at, v, true);
      case 'int32': return view.setInt32(at, v, true);
      case 'float32': return view.setFloat32(at, v, true);
      case 'float64': return view.setFloat64(at, v, true);
    }
  }
  bytes(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}
