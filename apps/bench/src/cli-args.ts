// Option parsers shared by the jepa-bench commands: comma lists run as a cartesian sweep.
export const int = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`expected a positive integer, got '${v}'`);
  return n;
};

export const count = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`expected a whole number, got '${v}'`);
  return n;
};

export const list = (v: string): string[] =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
export const intList = (v: string): number[] => list(v).map(int);

/** Commander's collector for a repeatable option. */
export const collect = (v: string, previous: string[] = []): string[] => [...previous, v];
