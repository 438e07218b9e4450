// Durations ("30s", "5m", "1h", "250ms", a bare number of seconds; "-1" or "forever" for none) and
// sizes ("2GB", "512MiB", a bare number of bytes), as flags and request fields write them.

const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const SIZE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
  k: 2 ** 10,
  m: 2 ** 20,
  g: 2 ** 30,
};

/**
 * Milliseconds, or Infinity for `-1` / `forever` / `inf`. A number is seconds (Ollama's keep_alive
 * takes both forms); throws a RangeError that says what it expected.
 */
export function parseDuration(value: string | number, what: string): number {
  if (typeof value === 'number') {
    if (value === -1) return Number.POSITIVE_INFINITY;
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`${what}: expected seconds >= 0 or -1 (forever), got ${value}`);
    return Math.round(value * 1000);
  }
  const text = value.trim().toLowerCase();
  if (text === '-1' || text === 'forever' || text === 'inf' || text === 'infinity') return Number.POSITIVE_INFINITY;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(text);
  if (!m) throw new RangeError(`${what}: expected a duration such as 30s, 5m, 1h, 250ms, 0 or forever, got '${value}'`);
  return Math.round(Number(m[1]) * DURATION_UNITS[m[2] ?? 's']!);
}

/** A duration for people: 300000 -> "5m", Infinity -> "forever". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return 'forever';
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** Bytes from `2GB` (1e9), `1.5GiB` (2^30), `512M` (2^20) or a bare number of bytes. */
export function parseSize(value: string | number, what: string): number {
  const text = String(value).trim().toLowerCase();
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/.exec(text);
  const unit = m ? SIZE_UNITS[m[2] || 'b'] : undefined;
  if (!m || unit === undefined) throw new RangeError(`${what}: expected a size such as 2GB, 1.5GiB or 512MiB, got '${value}'`);
  const bytes = Math.round(Number(m[1]) * unit);
  if (bytes <= 0) throw new RangeError(`${what}: must be more than 0 bytes`);
  return bytes;
}

/** A size for people: 1.23 GB, 45.6 MB (decimal units, as parseSize reads GB). */
export function formatSize(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(2)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${(bytes / 1e3).toFixed(1)} kB`;
}
