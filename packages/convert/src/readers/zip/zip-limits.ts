import { ConvertError } from '../../errors.js';

/** The most bytes one deflated zip entry may inflate to, in MiB; the environment can raise or lower it. */
export const ZIP_ENTRY_LIMIT_ENV = 'JEPA_MAX_ZIP_ENTRY_MIB';
export const DEFAULT_ZIP_ENTRY_MIB = 1024;

export interface ZipEntryLimit {
  bytes: number;
  /** How the refusal names the bound: `JEPA_MAX_ZIP_ENTRY_MIB=1024`. */
  setting: string;
}

/** Read when an entry is inflated (not at import), so a test or a caller can set it first. */
export function zipEntryLimit(env: NodeJS.ProcessEnv = process.env): ZipEntryLimit {
  const raw = env[ZIP_ENTRY_LIMIT_ENV];
  if (raw === undefined || raw.trim() === '')
    return { bytes: DEFAULT_ZIP_ENTRY_MIB * 2 ** 20, setting: `${ZIP_ENTRY_LIMIT_ENV}=${DEFAULT_ZIP_ENTRY_MIB}` };
  const mib = Number(raw);
  if (!Number.isFinite(mib) || mib <= 0) {
    throw new ConvertError('CONVERT_BAD_OPTION', `${ZIP_ENTRY_LIMIT_ENV}='${raw}' is not a positive number of MiB`);
  }
  return { bytes: Math.floor(mib * 2 ** 20), setting: `${ZIP_ENTRY_LIMIT_ENV}=${raw.trim()}` };
}

/** 3.75 GiB, 12.0 MiB, 512 bytes. */
export function sizeText(bytes: number): string {
  if (bytes >= 2 ** 30) return `${(bytes / 2 ** 30).toFixed(2)} GiB`;
  if (bytes >= 2 ** 20) return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  if (bytes >= 2 ** 10) return `${(bytes / 2 ** 10).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}
