import { basename } from 'node:path';
import { ConvertError } from '../../errors.js';
import { assertReadableSize } from '../dtypes.js';
import { RandomAccessFile } from '../random-access-file.js';
import { createTensorRef, type TensorRef } from '../tensor-ref.js';
import { readHeaderLength, readSafetensorsHeader, type SafetensorsHeader } from './header.js';

export interface SafetensorsFile {
  header: SafetensorsHeader;
  tensors: Map<string, TensorRef>;
  file: RandomAccessFile;
}

/** Opens one safetensors file: reads and validates the header only. */
export async function openSafetensorsFile(path: string): Promise<SafetensorsFile> {
  const file = await RandomAccessFile.open(path);
  try {
    const what = basename(path);
    const prefix = await file.read(0, Math.min(8, file.size));
    const length = readHeaderLength(prefix, file.size, what);
    const header = readSafetensorsHeader(await file.read(0, 8 + length), file.size, what);
    const tensors = new Map<string, TensorRef>();
    for (const entry of header.entries) {
      const byteOffset = header.dataOffset + entry.begin;
      const byteLength = entry.end - entry.begin;
      assertReadableSize(byteLength, `${what}: tensor '${entry.name}'`);
      tensors.set(
        entry.name,
        createTensorRef({
          name: entry.name,
          dtype: entry.dtype,
          shape: entry.shape,
          location: { kind: 'safetensors', file: path, byteOffset },
          readContiguous: () => file.read(byteOffset, byteLength),
        }),
      );
    }
    return { header, tensors, file };
  } catch (error) {
    await file.close();
    throw error instanceof ConvertError ? error : new ConvertError('CONVERT_IO', `${path}: ${(error as Error).message}`, { cause: error });
  }
}
