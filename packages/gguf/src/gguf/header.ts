import type { GgufMetadata, GgufValueType } from './value.js';

export interface GgufTensorInfo {
  readonly name: string;
  /** ggml_type id. */
  readonly type: number;
  /** ggml order: shape[0] is ne[0], the contiguous axis. */
  readonly shape: readonly number[];
  /** Absolute byte offset of the first byte of the tensor in the file. */
  readonly offset: number;
  /** Offset relative to the data section, as stored in the tensor-info table. */
  readonly relativeOffset: number;
  readonly nbytes: number;
}

/** A metadata value the reader walked past by its byte extent instead of materialising it (see ReadOptions). */
export interface GgufSkippedValue {
  readonly key: string;
  readonly type: GgufValueType;
  /** Arrays: the item type and count. */
  readonly itemType?: GgufValueType;
  readonly count?: number;
  /** Absolute offset of the value's type tag, and the bytes from there to the end of the value. */
  readonly offset: number;
  readonly nbytes: number;
}

export interface GgufHeader {
  readonly version: number;
  readonly alignment: number;
  readonly metadata: GgufMetadata;
  /** Values left unread by the read policy, in file order; empty when every value was materialised. */
  readonly skipped: ReadonlyMap<string, GgufSkippedValue>;
  readonly tensors: readonly GgufTensorInfo[];
  readonly tensorIndex: ReadonlyMap<string, GgufTensorInfo>;
  /** Absolute offset of the (aligned) data section. */
  readonly dataOffset: number;
  readonly fileSize: number;
}
