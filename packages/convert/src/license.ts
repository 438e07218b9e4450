// general.license: the user's --license, else what the checkpoint states (config.json's `license`), else
// the licence its family's weights are released under (the mapping's `license`); nothing when none is certain.
import { ConvertError } from './errors.js';
import type { Mapping } from './mappings/types.js';
import type { Source } from './source.js';

/** The schema's bound on a string key (general.license). */
export const MAX_LICENSE_CHARS = 1024;

/** A licence is one non-empty line of at most 1024 characters (an SPDX expression, or a name). */
export function checkLicense(value: string, origin: string): string {
  if (value.trim() === '') throw new ConvertError('CONVERT_BAD_OPTION', `${origin} is empty; give an SPDX identifier such as MIT`);
  if (/[\r\n]/.test(value)) throw new ConvertError('CONVERT_BAD_OPTION', `${origin} must be a single line`);
  if (value.length > MAX_LICENSE_CHARS)
    throw new ConvertError('CONVERT_BAD_OPTION', `${origin} is ${value.length} characters; at most ${MAX_LICENSE_CHARS} fit general.license`);
  return value;
}

function statedLicense(source: Source): string | null {
  const stated = source.config?.license;
  if (typeof stated !== 'string' || stated.trim() === '') return null;
  return checkLicense(stated, 'config.json license');
}

export function resolveLicense(given: string | undefined, source: Source, mapping: Mapping): string | null {
  if (given !== undefined) return checkLicense(given, '--license');
  return statedLicense(source) ?? mapping.license?.(source) ?? null;
}
