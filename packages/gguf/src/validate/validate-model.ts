import { checkTensorExtents } from '../gguf/extents.js';
import type { GgufHeader } from '../gguf/header.js';
import { readGguf } from '../gguf/reader.js';
import type { ModelSpec } from '../schema/model-spec.js';
import { parseHparams } from '../schema/parse-hparams.js';
import { expectedTensors } from '../schema/tensors.js';
import { checkDtypes, checkRequired, checkShapes } from './tensor-checks.js';

/**
 * Validates a parsed header in the spec's order — metadata, tensor extents against `fileSize`, dtypes, shapes,
 * required tensors — and returns the typed ModelSpec. Reads and allocates no tensor data.
 */
export function validateModel(header: GgufHeader, fileSize: number = header.fileSize): ModelSpec {
  const hparams = parseHparams(header.metadata);
  checkTensorExtents(header.tensors, fileSize);
  const expected = expectedTensors(hparams);
  const byName = new Map(expected.map((s) => [s.name, s]));
  checkDtypes(header.tensors, byName);
  checkShapes(header.tensors, byName);
  checkRequired(header.tensorIndex, expected);
  return { ...hparams, tensors: header.tensorIndex, header };
}

export function loadModelSpec(file: string | number): ModelSpec {
  const header = readGguf(file);
  return validateModel(header, header.fileSize);
}
