import { ConvertError } from '../errors.js';
import { PyObject, type PyValue } from './pickle/py-values.js';
import { isTensorRef, renameTensor, type TensorRef } from './tensor-ref.js';

/** The children of a container as (key, value) pairs; scalars and tensors have none. */
function children(value: PyValue): [string, PyValue][] {
  if (value instanceof Map) {
    const out: [string, PyValue][] = [];
    for (const [key, child] of value) {
      if (typeof key === 'string' || typeof key === 'number' || typeof key === 'bigint' || typeof key === 'boolean') out.push([String(key), child]);
    }
    return out;
  }
  if (Array.isArray(value)) return value.map((child, i) => [String(i), child]);
  if (value instanceof PyObject) return [...value.attributes];
  return [];
}

/**
 * Every tensor under `root`, named by its dotted path (dict keys and list indices). Containers
 * are walked once each, without recursion, so cyclic or very deep pickles are harmless.
 * With `adoptNames`, still-unnamed leaves of `root` take their path as name in place (so the
 * root and the table share objects); otherwise the table holds renamed copies.
 */
export function flattenTensors(root: PyValue, options: { adoptNames?: boolean } = {}): Map<string, TensorRef> {
  const out = new Map<string, TensorRef>();
  const seen = new Set<object>();
  const pending: [string, PyValue][] = [['', root]];
  while (pending.length > 0) {
    const [path, value] = pending.pop() as [string, PyValue];
    if (isTensorRef(value)) {
      if (out.has(path)) throw new ConvertError('STATE_DICT_NAME_COLLISION', `two tensors are both named '${path}'`);
      if (options.adoptNames && value.name === '') (value as { name: string }).name = path;
      out.set(path, renameTensor(value, path));
      continue;
    }
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    const kids = children(value);
    for (let i = kids.length - 1; i >= 0; i--) {
      const [key, child] = kids[i];
      pending.push([path === '' ? key : `${path}.${key}`, child]);
    }
  }
  return out;
}

/** Splits 'classifiers[0].x' or 'classifiers.0.x' into ['classifiers', '0', 'x']. */
function pathSegments(path: string): string[] {
  return path === ''
    ? []
    : path
        .replace(/\[(\d+)\]/g, '.$1')
        .split('.')
        .filter((s) => s !== '');
}

function child(value: PyValue, segment: string): PyValue | undefined {
  if (value instanceof Map) {
    if (value.has(segment)) return value.get(segment);
    const asNumber = Number(segment);
    return Number.isSafeInteger(asNumber) && value.has(asNumber) ? value.get(asNumber) : undefined;
  }
  if (Array.isArray(value)) return /^\d+$/.test(segment) ? value[Number(segment)] : undefined;
  if (value instanceof PyObject) return value.attributes.get(segment);
  return undefined;
}

export function valueAt(root: PyValue, path: string): PyValue | undefined {
  let value: PyValue | undefined = root;
  for (const segment of pathSegments(path)) {
    if (value === undefined) return undefined;
    value = child(value, segment);
  }
  return value;
}

export interface SelectedStateDict {
  /** Which of the preferred keys was taken ('' for the root). */
  key: string;
  /** Tensors named relative to that key. */
  tensors: Map<string, TensorRef>;
}

/**
 * Picks the first of `preferredKeys` (e.g. ['target_encoder', 'encoder'], 'classifiers[0]',
 * '' for the root itself) that holds tensors, and flattens it.
 */
export function selectStateDict(root: PyValue, preferredKeys: readonly string[]): SelectedStateDict {
  for (const key of preferredKeys) {
    const value = valueAt(root, key);
    if (value === undefined) continue;
    const tensors = flattenTensors(value);
    if (tensors.size > 0) return { key, tensors };
  }
  const available = children(root).map(([k]) => k);
  throw new ConvertError(
    'STATE_DICT_NOT_FOUND',
    `no tensors under any of [${preferredKeys.map((k) => JSON.stringify(k)).join(', ')}]; the top level has [${available.join(', ')}]`,
  );
}

/**
 * Removes the first matching prefix from every name (longest prefix first, so
 * 'module.backbone.' wins over 'module.'). Refuses when two names become one.
 */
export function stripPrefixes(tensors: ReadonlyMap<string, TensorRef>, prefixes: readonly string[]): Map<string, TensorRef> {
  const ordered = [...prefixes].filter((p) => p !== '').sort((a, b) => b.length - a.length);
  const out = new Map<string, TensorRef>();
  for (const [name, ref] of tensors) {
    const prefix = ordered.find((p) => name.startsWith(p));
    const stripped = prefix === undefined ? name : name.slice(prefix.length);
    if (out.has(stripped))
      throw new ConvertError('STATE_DICT_NAME_COLLISION', `stripping prefixes maps two tensors to '${stripped}' (one was '${name}')`);
    out.set(stripped, renameTensor(ref, stripped));
  }
  return out;
}
