import type { GgufMetadata } from './value.js';

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

export interface GgufHeader {
  readonly version: number;
  readonly alignment: number;
  readonly metadata: GgufMetadata;
  readonly tensors: readonly GgufTensorInfo[];
  readonly tensorIndex: ReadonlyMap<string, GgufTensorInfo>;
  /** Absolute offset of the (aligned) data section. */
  readonly dataOffset: number;
  readonly fileSize: number;
}
