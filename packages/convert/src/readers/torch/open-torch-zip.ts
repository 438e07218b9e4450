import { basename } from 'node:path';
import { ConvertError } from '../../errors.js';
import type { PyValue } from '../pickle/py-values.js';
import type { RandomAccessFile } from '../random-access-file.js';
import { ZipArchive } from '../zip/zip-archive.js';
import { storageLoader } from './persistent-storages.js';
import { unpickle } from './unpickle.js';

export interface TorchZip {
  root: PyValue;
  metadata: Record<string, string>;
}

/** The archive folder holding data.pkl: torch names it after the file stem. */
function findArchiveName(archive: ZipArchive, what: string): string {
  const candidates = [...archive.entries.keys()].filter((name) => /^[^/]+\/data\.pkl$/.test(name));
  if (candidates.length !== 1) {
    throw new ConvertError('TORCH_NO_DATA_PKL', `${what}: expected one <archive>/data.pkl entry, found ${candidates.length}`);
  }
  return candidates[0].slice(0, -'/data.pkl'.length);
}

async function readText(archive: ZipArchive, name: string): Promise<string | undefined> {
  const entry = archive.entries.get(name);
  if (entry === undefined || entry.uncompressedSize > 4096) return undefined;
  return new TextDecoder().decode(await archive.read(entry)).trim();
}

/** An unpickler refusal ("pickle: …", "torch tensor …") told with the file and entry it came from. */
function inEntry(error: unknown, what: string, path: string, entry: string): unknown {
  if (!(error instanceof ConvertError) || error.message.startsWith(path) || error.message.startsWith(`${what}:`)) return error;
  return new ConvertError(error.code, `${what}: ${entry}: ${error.message.replace(/^pickle: /, '')}`, { cause: error });
}

/** Reads data.pkl of a torch zip checkpoint; tensors stay lazy views over their storage records. */
export async function openTorchZip(file: RandomAccessFile): Promise<TorchZip> {
  const what = basename(file.path);
  const archive = await ZipArchive.open(file, what);
  const archiveName = findArchiveName(archive, what);
  const byteOrder = await readText(archive, `${archiveName}/byteorder`);
  if (byteOrder !== undefined && byteOrder !== 'little') {
    throw new ConvertError('TORCH_BIG_ENDIAN', `${what}: storages were written ${byteOrder}-endian; only little-endian checkpoints are read`);
  }
  const pickleName = `${archiveName}/data.pkl`;
  const pickle = await archive.read(archive.entry(pickleName));
  let root: PyValue;
  try {
    root = unpickle(pickle, { persistentLoad: storageLoader(archive, archiveName, file.path) });
  } catch (error) {
    throw inEntry(error, what, file.path, pickleName);
  }
  const metadata: Record<string, string> = { archive: archiveName };
  const version = await readText(archive, `${archiveName}/version`);
  if (version !== undefined) metadata.version = version;
  return { root, metadata };
}
