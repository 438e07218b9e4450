import { DTYPE_BYTES, type TensorDType } from '../dtypes.js';
import { PyHandle } from '../pickle/py-values.js';
import type { ZipArchive, ZipEntry } from '../zip/zip-archive.js';

/** One `<archive>/data/<key>` record: a flat run of `numel` elements of one dtype. */
export class TorchStorage extends PyHandle {
  readonly kind = 'torch-storage';

  constructor(
    readonly file: string,
    readonly key: string,
    readonly dtype: TensorDType,
    readonly numel: number,
    private readonly archive: ZipArchive,
    private readonly entry: ZipEntry,
  ) {
    super();
  }

  /** Reads elements [first, first + count) and nothing else. */
  readElements(first: number, count: number): Promise<Uint8Array> {
    const size = DTYPE_BYTES[this.dtype];
    return this.archive.readRange(this.entry, first * size, count * size);
  }
}
