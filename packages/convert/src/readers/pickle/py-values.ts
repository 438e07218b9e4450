import type { TensorRef } from '../tensor-ref.js';

/**
 * A Python value as the unpickler builds it: dicts are Maps (key order kept, int keys kept),
 * lists are arrays, tuples are frozen arrays, bytes are Uint8Arrays, ints beyond 2^53 are bigints.
 */
export type PyValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | PyValue[]
  | readonly PyValue[]
  | Map<PyValue, PyValue>
  | Set<PyValue>
  | PyObject
  | PyGlobal
  | PyHandle
  | TensorRef;

/** An instance of a whitelisted plain-data class (e.g. argparse.Namespace): its attributes only. */
export class PyObject {
  constructor(
    readonly className: string,
    readonly attributes = new Map<string, PyValue>(),
  ) {}
}

/** A value owned by a reader extension (e.g. a torch storage); opaque to the VM. */
export abstract class PyHandle {
  abstract readonly kind: string;

  /** BUILD on this value; handles that take no state refuse it. */
  setState(_state: PyValue): boolean {
    return false;
  }
}

export interface GlobalBehaviour {
  /** What calling the global does (REDUCE / NEWOBJ). Absent: the global is a value, not callable. */
  call?: (args: readonly PyValue[]) => PyValue;
  /** For classes copyreg may rebuild: make an empty instance. */
  instantiate?: () => PyValue;
  /** Extra facts for extensions (e.g. the dtype of a torch storage class). */
  tag?: string;
}

/** A whitelisted module-level name, resolved by GLOBAL / STACK_GLOBAL. */
export class PyGlobal {
  constructor(
    readonly module: string,
    readonly name: string,
    readonly behaviour: GlobalBehaviour,
  ) {}

  get qualifiedName(): string {
    return `${this.module}.${this.name}`;
  }
}

/** module -> name -> definition. Anything not listed is refused. */
export type GlobalWhitelist = ReadonlyMap<string, ReadonlyMap<string, PyGlobal>>;

export function buildWhitelist(globals: readonly PyGlobal[]): GlobalWhitelist {
  const table = new Map<string, Map<string, PyGlobal>>();
  for (const g of globals) {
    let names = table.get(g.module);
    if (names === undefined) {
      names = new Map();
      table.set(g.module, names);
    }
    names.set(g.name, g);
  }
  return table;
}

export function tuple(items: PyValue[]): readonly PyValue[] {
  return Object.freeze(items);
}

export function isTuple(value: PyValue): value is readonly PyValue[] {
  return Array.isArray(value) && Object.isFrozen(value);
}
