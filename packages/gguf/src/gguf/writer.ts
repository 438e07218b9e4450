import { GgufError } from '../errors.js';
import { tensorNbytes } from '../ggml-types.js';
import { ByteBuilder } from './byte-builder.js';
import { GGML_MAX_NAME, GGUF_DEFAULT_ALIGNMENT, GGUF_KEY_ALIGNMENT, GGUF_MAGIC, GGUF_VERSION } from './constants.js';
import { FileSink, MemorySink, type Sink } from './sink.js';
import type { GgufValue } from './value.js';

export interface DeclaredTensor {
  readonly name: string;
  readonly type: number;
  readonly shape: readonly number[];
  readonly nbytes: number;
  /** Offset relative to the data section. */
  readonly relativeOffset: number;
}

export interface GgufWriteResult {
  readonly size: number;
  /** The file bytes, for a writer made by GgufWriter.inMemory(). */
  readonly bytes?: Uint8Array;
  /** Absolute file positions of each tensor's offset field in the tensor-info table (forging lying offsets). */
  readonly offsetFieldPositions: ReadonlyMap<string, number>;
}

type State = 'declaring' | 'data' | 'done';

/**
 * Streaming GGUF v3 writer. Declare all metadata and tensor infos, then write each tensor's bytes in declaration
 * order (whole or in chunks); each tensor is padded to the alignment. Only the header is ever held in memory.
 */
export class GgufWriter {
  private readonly metadata = new Map<string, GgufValue>();
  private readonly tensors: DeclaredTensor[] = [];
  private readonly names = new Set<string>();
  private dataSize = 0;
  private state: State = 'declaring';
  private written = 0;
  private current = 0;
  private currentDone = 0;
  private readonly offsetFieldPositions = new Map<string, number>();

  private constructor(
    private readonly sink: Sink,
    private alignment: number,
  ) {
    if (alignment !== GGUF_DEFAULT_ALIGNMENT) this.setMetadata(GGUF_KEY_ALIGNMENT, { type: 'u32', value: alignment });
  }

  /** Writes to `<dir>/.<name>.<pid>.<time>.tmp` and renames to `path` on finish(). */
  static toFile(path: string, options: { alignment?: number } = {}): GgufWriter {
    return new GgufWriter(new FileSink(path), checkAlignment(options.alignment ?? GGUF_DEFAULT_ALIGNMENT));
  }

  static inMemory(options: { alignment?: number } = {}): GgufWriter {
    return new GgufWriter(new MemorySink(), checkAlignment(options.alignment ?? GGUF_DEFAULT_ALIGNMENT));
  }

  /** Adds or replaces a metadata entry; a replaced key keeps its position. */
  setMetadata(key: string, value: GgufValue): this {
    this.expect('declaring', `set metadata '${key}'`);
    if (key.length === 0) throw new GgufError('GGUF_BAD_KEY', 'metadata key is empty');
    new ByteBuilder().value(key, value); // refuses a value its declared type cannot hold, now rather than at the header
    if (key === GGUF_KEY_ALIGNMENT) {
      if (value.type !== 'u32') throw new GgufError('GGUF_BAD_ALIGNMENT', `'${key}' must be u32, not ${value.type}`);
      if (this.tensors.length > 0) throw new GgufError('GGUF_WRITE_STATE', `set '${key}' before declaring tensors`);
      this.alignment = checkAlignment(value.value);
    }
    this.metadata.set(key, value);
    return this;
  }

  deleteMetadata(key: string): this {
    this.expect('declaring', `delete metadata '${key}'`);
    this.metadata.delete(key);
    return this;
  }

  addTensor(name: string, type: number, shape: readonly number[]): DeclaredTensor {
    this.expect('declaring', `declare tensor '${name}'`);
    if (name.length === 0 || Buffer.byteLength(name) >= GGML_MAX_NAME) {
      throw new GgufError('GGUF_BAD_TENSOR_NAME', `tensor name '${name}' must have 1..${GGML_MAX_NAME - 1} bytes`);
    }
    if (this.names.has(name)) throw new GgufError('GGUF_DUPLICATE_TENSOR', `tensor '${name}' declared twice`);
    const nbytes = Number(tensorNbytes(type, shape, name));
    const declared: DeclaredTensor = Object.freeze({ name, type, shape: [...shape], nbytes, relativeOffset: this.dataSize });
    this.tensors.push(declared);
    this.names.add(name);
    this.dataSize += alignUp(nbytes, this.alignment);
    return declared;
  }

  get declaredTensors(): readonly DeclaredTensor[] {
    return this.tensors;
  }

  /** The tensor whose bytes are expected next, or undefined once every tensor is written. */
  get nextTensor(): DeclaredTensor | undefined {
    return this.tensors[this.current];
  }

  /** Writes the next bytes of the current tensor; a tensor may arrive in any number of chunks. */
  writeTensorData(data: ArrayBufferView): void {
    if (this.state === 'declaring') this.writeHeader();
    this.expect('data', 'write tensor data');
    while (this.tensors[this.current]?.nbytes === 0) this.endTensor();
    const t = this.tensors[this.current];
    if (t === undefined) {
      throw new GgufError('GGUF_WRITE_SIZE', `${data.byteLength} bytes written after the last declared tensor`);
    }
    if (data.byteLength > t.nbytes - this.currentDone) {
      throw new GgufError(
        'GGUF_WRITE_SIZE',
        `tensor '${t.name}' has ${t.nbytes - this.currentDone} of its ${t.nbytes} bytes left, ${data.byteLength} were given`,
      );
    }
    this.emit(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    this.currentDone += data.byteLength;
    if (this.currentDone === t.nbytes) this.endTensor();
  }

  finish(): GgufWriteResult {
    if (this.state === 'declaring') this.writeHeader();
    this.expect('data', 'finish');
    while (this.tensors[this.current]?.nbytes === 0) this.endTensor();
    const t = this.tensors[this.current];
    if (t !== undefined) {
      this.abort();
      throw new GgufError(
        'GGUF_WRITE_SIZE',
        `tensor '${t.name}' got ${this.currentDone} of its ${t.nbytes} bytes (${this.tensors.length - this.current - 1} tensors after it unwritten)`,
      );
    }
    this.state = 'done';
    const bytes = this.sink.close();
    return { size: this.written, offsetFieldPositions: this.offsetFieldPositions, ...(bytes ? { bytes } : {}) };
  }

  /** Drops the output (the temporary file is removed). */
  abort(): void {
    if (this.state !== 'done') this.sink.abort();
    this.state = 'done';
  }

  private endTensor(): void {
    const t = this.tensors[this.current];
    const pad = alignUp(t.nbytes, this.alignment) - t.nbytes;
    if (pad > 0) this.emit(new Uint8Array(pad));
    this.current++;
    this.currentDone = 0;
  }

  private writeHeader(): void {
    const b = new ByteBuilder();
    b.u32(GGUF_MAGIC);
    b.u32(GGUF_VERSION);
    b.i64(BigInt(this.tensors.length));
    b.i64(BigInt(this.metadata.size));
    for (const [key, value] of this.metadata) {
      b.string(key);
      b.value(key, value);
    }
    for (const t of this.tensors) {
      b.string(t.name);
      b.u32(t.shape.length);
      for (const d of t.shape) b.i64(BigInt(d));
      b.i32(t.type);
      this.offsetFieldPositions.set(t.name, b.length);
      b.u64(BigInt(t.relativeOffset));
    }
    if (this.tensors.length > 0) b.zeros(alignUp(b.length, this.alignment) - b.length);
    this.emit(b.bytes());
    this.state = 'data';
  }

  private emit(bytes: Uint8Array): void {
    this.sink.write(bytes);
    this.written += bytes.byteLength;
  }

  private expect(state: State, action: string): void {
    if (this.state !== state)
      throw new GgufError('GGUF_WRITE_STATE', `cannot ${action}: the writer is ${this.state === 'done' ? 'finished' : 'writing tensor data'}`);
  }
}

function checkAlignment(a: number): number {
  if (!Number.isInteger(a) || a <= 0 || a > 2 ** 31 || !Number.isInteger(Math.log2(a))) {
    throw new GgufError('GGUF_BAD_ALIGNMENT', `alignment ${a} is not a power of 2 in [1, 2^31]`);
  }
  return a;
}

function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}
