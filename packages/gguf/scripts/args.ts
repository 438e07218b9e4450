import { parseArgs } from 'node:util';

/** Parses `--name value` options into numbers/strings, refusing unknown flags. */
export function cliOptions<const T extends Record<string, { type: 'string'; default?: string }>>(spec: T) {
  return parseArgs({ options: spec, allowPositionals: false, strict: true }).values as unknown as { [K in keyof T]: string };
}

export function positiveNumber(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number, got '${raw}'`);
  return n;
}
