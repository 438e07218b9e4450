import { GgufError } from '../errors.js';

/** Refuses any tensor whose bytes are not inside the file: the header alone can promise terabytes. */
export function checkTensorExtents(tensors: readonly { name: string; offset: bigint | number; nbytes: bigint | number }[], fileSize: number): void {
  const size = BigInt(fileSize);
  for (const t of tensors) {
    const start = BigInt(t.offset);
    const end = start + BigInt(t.nbytes);
    if (start < 0n || end > size) {
      throw new GgufError(
        'GGUF_TENSOR_OUT_OF_FILE',
        `tensor '${t.name}' needs ${end - start} bytes at [${start}, ${end}) but the file has ${size} bytes: ` +
          (start < size
            ? `truncated inside the data section, ${end - size} bytes short (or '${t.name}' has a wrong dim or type)`
            : `it starts past the end of the file (truncated, or '${t.name}' has a wrong offset)`),
      );
    }
  }
}
