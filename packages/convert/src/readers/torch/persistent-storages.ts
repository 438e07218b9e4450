import { ConvertError } from '../../errors.js';
import { DTYPE_BYTES } from '../dtypes.js';
import { PyGlobal, type PyValue } from '../pickle/py-values.js';
import type { ZipArchive } from '../zip/zip-archive.js';
import { STORAGE_DTYPES } from './storage-types.js';
import { TorchStorage } from './torch-storage.js';

/**
 * The persistent_load of torch's zip format: ('storage', StorageType, key, location, numel)
 * names the record `<archive>/data/<key>`. Each record is checked to exist and to hold
 * exactly numel elements before any tensor over it is built.
 */
export function storageLoader(archive: ZipArchive, archiveName: string, file: string): (pid: PyValue) => PyValue {
  const storages = new Map<string, TorchStorage>();
  return (pid) => {
    if (!Array.isArray(pid) || pid.length !== 5 || pid[0] !== 'storage') {
      throw new ConvertError('TORCH_BAD_PERSISTENT_ID', `${file}: persistent id is not ('storage', type, key, location, numel)`);
    }
    const [, storageType, key, , numel] = pid;
    if (!(storageType instanceof PyGlobal) || storageType.module !== 'torch' || !Object.hasOwn(STORAGE_DTYPES, storageType.name)) {
      throw new ConvertError('TORCH_BAD_PERSISTENT_ID', `${file}: persistent id names no torch storage type`);
    }
    if (typeof key !== 'string' || !Number.isSafeInteger(numel) || (numel as number) < 0) {
      throw new ConvertError('TORCH_BAD_PERSISTENT_ID', `${file}: persistent id has a bad key or element count`);
    }
    const dtype = STORAGE_DTYPES[storageType.name];
    const known = storages.get(key);
    if (known !== undefined) {
      if (known.dtype !== dtype || known.numel !== numel)
        throw new ConvertError('TORCH_BAD_PERSISTENT_ID', `${file}: storage ${key} is described two different ways`);
      return known;
    }
    const entry = archive.entries.get(`${archiveName}/data/${key}`);
    if (entry === undefined)
      throw new ConvertError('TORCH_MISSING_STORAGE', `${file}: storage ${key} (${storageType.name}) has no record ${archiveName}/data/${key}`);
    const bytes = (numel as number) * DTYPE_BYTES[dtype];
    if (entry.uncompressedSize !== bytes) {
      throw new ConvertError(
        'TORCH_STORAGE_SIZE',
        `${file}: storage ${key} should hold ${numel} x ${dtype} = ${bytes} bytes but its record has ${entry.uncompressedSize}`,
      );
    }
    const storage = new TorchStorage(file, key, dtype, numel as number, archive, entry);
    storages.set(key, storage);
    return storage;
  };
}
