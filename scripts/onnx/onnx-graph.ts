import onnxProto from 'onnx-proto';
import type { onnx as Onnx } from 'onnx-proto';

const { onnx } = onnxProto;

/** Element types the builder emits; values are ONNX TensorProto.DataType codes. */
export const DataType = { float32: 1, int64: 7, bool: 9 } as const;
export type ElemType = keyof typeof DataType;

/** A tensor dimension: a fixed size or a symbolic name (dim_param). */
export type Dim = number | string;

/** A typed node attribute; ONNX distinguishes int and float attributes, so the type is explicit. */
export type Attr = { int: number } | { float: number } | { ints: readonly number[] };

/**
 * Accumulates one ONNX graph (default domain only) and serializes it as a ModelProto.
 * Invariants: every value name is unique within the graph; constants are initializers, never
 * Constant nodes; raw tensor data is little-endian (the ONNX wire format), as on every JS host.
 */
export class OnnxGraph {
  private readonly nodes: Onnx.INodeProto[] = [];
  private readonly initializers: Onnx.ITensorProto[] = [];
  private readonly inputs: Onnx.IValueInfoProto[] = [];
  private readonly outputs: Onnx.IValueInfoProto[] = [];
  private readonly names = new Set<string>();
  private readonly constCache = new Map<string, string>();
  private counter = 0;

  /** Declares a graph input and returns its name. */
  input(name: string, type: ElemType, dims: readonly Dim[]): string {
    this.claim(name);
    this.inputs.push(valueInfo(name, type, dims));
    return name;
  }

  /** Declares an existing value (produced by a node) as a graph output. */
  output(name: string, type: ElemType, dims: readonly Dim[]): void {
    if (!this.names.has(name)) throw new Error(`onnx graph: output ${name} is not produced by any node`);
    this.outputs.push(valueInfo(name, type, dims));
  }

  /** Adds a named float32 initializer, stored once as raw bytes. */
  floatInitializer(name: string, data: Float32Array, dims: readonly number[]): string {
    checkSize(name, data.length, dims);
    this.claim(name);
    this.initializers.push({ name, dataType: DataType.float32, dims: [...dims], rawData: bytesOf(data) });
    return name;
  }

  /** A float32 constant (deduplicated by value and shape). `dims` [] makes a scalar. */
  constFloat(values: readonly number[], dims: readonly number[] = [values.length]): string {
    return this.constant('float32', values, dims);
  }

  /** An int64 constant (deduplicated by value and shape). `dims` [] makes a scalar. */
  constInt64(values: readonly number[], dims: readonly number[] = [values.length]): string {
    return this.constant('int64', values, dims);
  }

  /**
   * Appends a node with one output and returns the output's name (`out` if given, else a fresh name
   * derived from `hint`).
   */
  op(opType: string, inputs: readonly string[], attrs: Readonly<Record<string, Attr>> = {}, out?: string, hint?: string): string {
    for (const i of inputs) {
      if (i !== '' && !this.names.has(i)) throw new Error(`onnx graph: ${opType} input ${i} is undefined`);
    }
    const output = out ?? this.fresh(hint ?? opType);
    if (out !== undefined) this.claim(out);
    this.nodes.push({
      name: `${opType}_${this.nodes.length}`,
      opType,
      input: [...inputs],
      output: [output],
      attribute: Object.entries(attrs).map(([name, a]) => attribute(name, a)),
    });
    return output;
  }

  /** Serializes the graph as an ONNX model (IR version 8, default-domain opset `opset`). */
  encode(opts: { name: string; opset: number; producer?: string; docString?: string }): Uint8Array {
    const model: Onnx.IModelProto = {
      irVersion: 8,
      producerName: opts.producer ?? 'llama-agent-web/scripts/onnx',
      producerVersion: '1',
      docString: opts.docString ?? '',
      opsetImport: [{ domain: '', version: opts.opset }],
      graph: {
        name: opts.name,
        node: this.nodes,
        initializer: this.initializers,
        input: this.inputs,
        output: this.outputs,
      },
    };
    return onnx.ModelProto.encode(model).finish();
  }

  private constant(type: 'float32' | 'int64', values: readonly number[], dims: readonly number[]): string {
    checkSize('constant', values.length, dims);
    const key = `${type}|${dims.join(',')}|${values.join(',')}`;
    const cached = this.constCache.get(key);
    if (cached) return cached;
    const name = this.fresh(`const_${type}`);
    const raw = type === 'float32' ? bytesOf(Float32Array.from(values)) : bytesOf(BigInt64Array.from(values.map((v) => BigInt(v))));
    this.initializers.push({ name, dataType: DataType[type], dims: [...dims], rawData: raw });
    this.constCache.set(key, name);
    return name;
  }

  private fresh(hint: string): string {
    let name: string;
    do name = `${hint}_${this.counter++}`;
    while (this.names.has(name));
    this.names.add(name);
    return name;
  }

  private claim(name: string): void {
    if (this.names.has(name)) throw new Error(`onnx graph: duplicate value name ${name}`);
    this.names.add(name);
  }
}

function checkSize(name: string, length: number, dims: readonly number[]): void {
  const size = dims.reduce((a, b) => a * b, 1);
  if (size !== length) throw new Error(`onnx graph: ${name} has ${length} values for dims [${dims.join(', ')}]`);
}

function bytesOf(view: Float32Array | BigInt64Array): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

function valueInfo(name: string, type: ElemType, dims: readonly Dim[]): Onnx.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: DataType[type],
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

function attribute(name: string, a: Attr): Onnx.IAttributeProto {
  const T = onnx.AttributeProto.AttributeType;
  if ('int' in a) return { name, type: T.INT, i: a.int };
  if ('float' in a) return { name, type: T.FLOAT, f: a.float };
  return { name, type: T.INTS, ints: [...a.ints] };
}
