import { checkTensorExtents } from '../gguf/extents.js';
import type { GgufHeader } from '../gguf/header.js';
import type { ByteSource } from '../gguf/byte-source.js';
import { readGguf, readGgufFromSource } from '../gguf/reader.js';
import type { ModelSpec } from '../schema/model-spec.js';
import { parseHparams } from '../schema/parse-hparams.js';
import { schemaReadOptions } from '../schema/read-policy.js';
import { expectedTensors } from '../schema/tensors.js';
import { checkDtypes, checkRequired, checkShapes } from './tensor-checks.js';

/**
 * Validates a parsed header in the spec's order — metadata, tensor extents against `fileSize`, dtypes, shapes,
 * required tensors — and returns the typed ModelSpec. Reads and allocates no tensor data.
 */
export function validateModel(header: GgufHeader, fileSize: number = header.fileSize): ModelSpec {
  const hparams = parseHparams(header.metadata, header.skipped?.keys() ?? []);
  checkTensorExtents(header.tensors, fileSize);
  const expected = expectedTensors(hparams);
  const byName = new Map(expected.map((s) => [s.name, s]));
  checkDtypes(header.tensors, byName);
  checkShapes(header.tensors, byName);
  checkRequired(header.tensorIndex, expected);
  return { ...hparams, tensors: header.tensorIndex, header };
}

/**
 * Reads and validates a model file. The header is read under the schema's policy (schemaReadOptions): every value
 * is costed from its count or length first, keys the schema does not define are skipped by extent, so a hostile
 * file is refused naming the bound before anything of its claimed size is built.
 */
export function loadModelSpec(file: string | number): ModelSpec {
  const header = readGguf(file, schemaReadOptions());
  return validateModel(header, header.fileSize);
}

/** loadModelSpec over any ByteSource (tests, fuzzing, buffers). */
export function loadModelSpecFromSource(source: ByteSource): ModelSpec {
  const header = readGgufFromSource(source, schemaReadOptions());
  return validateModel(header, header.fileSize);
}
