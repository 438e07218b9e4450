export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export async function timeMs(fn: () => unknown | Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** Runs `warmup` untimed then `repeat` timed calls; returns every sample in ms. */
export async function sample(fn: () => unknown | Promise<unknown>, repeat: number, warmup: number): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < repeat; i++) out.push(await timeMs(fn));
  return out;
}
