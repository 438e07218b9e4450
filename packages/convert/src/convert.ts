// checkpoint → GGUF: detect the layout, map the names, validate the hparams against the schema and
// the tensors against the hparams, then stream every tensor (one in memory at a time) to a temp file
// that is renamed when complete.
import { basename } from 'node:path';
import {
  encodeHalfScanned,
  expectedTensors,
  GgmlType,
  GgufWriter,
  hparamsToMetadata,
  HEAD_FAMILIES,
  scanNonFinite,
  type Family,
  type ModelHparams,
  type NonFinite,
  type TensorSpec,
} from '@jepa/gguf';
import { ConvertError } from './errors.js';
import { checkLicense, resolveLicense } from './license.js';
import { validatedHparams } from './mappings/hparams.js';
import { detectMapping } from './mappings/index.js';
import { isDinotxtCheckpoint, mapMetaDinotxt } from './mappings/meta-dinotxt.js';
import { mapMetaProbe } from './mappings/meta-probe.js';
import { defaultVocabPath, readBpeMerges } from './bpe-merges.js';
import type { OutputTensor, TensorMap } from './mappings/tensor-map.js';
import type { ArchOverrides, MappedModel } from './mappings/types.js';
import type { Checkpoint } from './readers/checkpoint.js';
import { openCheckpoint } from './readers/open-checkpoint.js';
import { openSource, type Source } from './source.js';
import { trimmed } from './trim.js';

export type WeightDtype = 'f32' | 'f16' | 'bf16';
export const WEIGHT_DTYPES: readonly WeightDtype[] = ['f32', 'f16', 'bf16'];

export interface ConvertProgress {
  tensor: string;
  /** 1-based index of the tensor just written. */
  index: number;
  count: number;
  bytesWritten: number;
  bytesTotal: number;
}

export interface ConvertOptions extends ArchOverrides {
  /** A GGUF family name or a mapping id (`hf-vit`, `meta-vjepa2_1`, …); detected when absent. */
  family?: string;
  /** Type of the matmul weights; everything else stays f32. Default f32. */
  dtype?: WeightDtype;
  /** Skip source tensors no rule maps instead of refusing the checkpoint. */
  allowUnmapped?: boolean;
  /** Write tensors holding NaN or ±Inf instead of refusing the checkpoint (they are listed in the summary). */
  allowNonfinite?: boolean;
  /** A Meta attentive-probe file (V-JEPA `*-probe.pth.tar`, V-JEPA 2 `evals/*.pt`) to convert as the head. */
  probe?: string;
  /** The probe's attention heads when they differ from the encoder's (Meta's ViT-g probes use 16). */
  probeHeads?: number;
  /** Leave out the classifier head (`--no-head`); `noPredictor` (in ArchOverrides) leaves out the predictor. */
  noHead?: boolean;
  /**
   * dino.txt: the source is the vision-head-and-text-encoder .pth and this is its DINOv3 backbone .pth; one GGUF
   * holds both, with the vocabulary.
   */
  backbone?: string;
  /** dino.txt: CLIP's BPE merges file (default: bpe_simple_vocab_16e6.txt.gz beside the source). */
  vocab?: string;
  /** dino.txt: the text tower's heads (default width / 64, the released model's 20). */
  textHeads?: number;
  /** general.license (an SPDX identifier), instead of config.json's or the family's release licence. */
  license?: string;
  onProgress?: (p: ConvertProgress) => void;
}

export interface ConvertSummary {
  out: string;
  family: Family;
  mapping: string;
  layout: string;
  dtype: WeightDtype;
  /** The Meta pickle entry the encoder came from (not stored in the file: schema v1 has no key for it). */
  sourceEntry: string | null;
  tensors: number;
  bytes: number;
  /** Source tensors skipped by an ignore rule of the mapping. */
  ignored: string[];
  /** Source tensors skipped because allowUnmapped was set. */
  skippedUnmapped: string[];
  /** Output tensors written with NaN or ±Inf values because allowNonfinite was set. */
  nonFinite: { tensor: string; count: number }[];
  notes: string[];
  hparams: ModelHparams;
}

/** llama.cpp ftype of the dominant weight type (general.file_type). */
const FILE_TYPE: Record<WeightDtype, number> = { f32: 0, f16: 1, bf16: 32 };
const GGML_TYPE: Record<WeightDtype, number> = { f32: GgmlType.F32, f16: GgmlType.F16, bf16: GgmlType.BF16 };

function listed(names: readonly string[], max = 20): string {
  return names.slice(0, max).join(', ') + (names.length > max ? `, … (${names.length} in all)` : '');
}

/** Every tensor the hparams promise must be produced with exactly that shape, and nothing else. */
function matchOutputs(specs: readonly TensorSpec[], outputs: ReadonlyMap<string, OutputTensor>, layout: string): void {
  const expected = new Set(specs.map((s) => s.name));
  for (const spec of specs) {
    const out = outputs.get(spec.name);
    if (!out)
      throw new ConvertError(
        'CONVERT_MISSING_TENSOR',
        `the hyperparameters promise '${spec.name}' [${spec.shape.join(', ')}], but the ${layout} checkpoint has nothing that maps to it`,
      );
    if (out.shape.length !== spec.shape.length || out.shape.some((d, i) => d !== spec.shape[i])) {
      throw new ConvertError(
        'CONVERT_SHAPE_MISMATCH',
        `'${spec.name}' from ${out.sources.map((s) => `'${s}'`).join(' + ')} has ggml shape [${out.shape.join(', ')}], but the hyperparameters give [${spec.shape.join(', ')}]`,
      );
    }
  }
  const extra = [...outputs.keys()].filter((n) => !expected.has(n));
  if (extra.length > 0) throw new ConvertError('CONVERT_SHAPE_MISMATCH', `mapped tensors the hyperparameters do not describe: ${listed(extra)}`);
}

/** The bytes to write, with the non-finite scan done in the same pass as the f16/bf16 encoding. */
function tensorBytes(data: Float32Array, spec: TensorSpec, dtype: WeightDtype): { bytes: ArrayBufferView; nonFinite: NonFinite | null } {
  if (spec.role !== 'matmul' || dtype === 'f32') return { bytes: data, nonFinite: scanNonFinite(data) };
  const { out, nonFinite } = encodeHalfScanned(data, dtype);
  return { bytes: out, nonFinite };
}

function nonFiniteRefusal(output: OutputTensor, found: NonFinite): ConvertError {
  const from = output.sources.length > 0 ? ` (from ${output.sources.map((s) => `'${s}'`).join(' + ')})` : '';
  const value = Number.isNaN(found.value) ? 'NaN' : found.value > 0 ? 'Inf' : '-Inf';
  const count = found.count === 1 ? 'the only non-finite value' : `${found.count} non-finite values in all`;
  return new ConvertError(
    'CONVERT_NONFINITE',
    `tensor '${output.name}'${from} holds ${value} (first at element ${found.first}; ${count}); the checkpoint is damaged or was saved from a diverged run; --allow-nonfinite converts it anyway`,
  );
}

async function writeModel(
  out: string,
  hparams: ModelHparams,
  specs: readonly TensorSpec[],
  outputs: ReadonlyMap<string, OutputTensor>,
  options: ConvertOptions,
  dtype: WeightDtype,
  nonFiniteKept: { tensor: string; count: number }[],
): Promise<number> {
  const writer = GgufWriter.toFile(out);
  try {
    for (const [key, value] of hparamsToMetadata(hparams)) writer.setMetadata(key, value);
    const declared = specs.map((s) => writer.addTensor(s.name, s.role === 'matmul' ? GGML_TYPE[dtype] : GgmlType.F32, s.shape));
    const bytesTotal = declared.reduce((a, t) => a + t.nbytes, 0);
    let bytesWritten = 0;
    for (let i = 0; i < specs.length; i++) {
      const spec = specs[i]!;
      const output = outputs.get(spec.name)!;
      const data = await output.produce();
      const count = spec.shape.reduce((a, b) => a * b, 1);
      if (data.length !== count) throw new Error(`mapping bug: '${spec.name}' produced ${data.length} values for ${count}`);
      const { bytes, nonFinite } = tensorBytes(data, spec, dtype);
      if (nonFinite) {
        if (!options.allowNonfinite) throw nonFiniteRefusal(output, nonFinite);
        nonFiniteKept.push({ tensor: spec.name, count: nonFinite.count });
      }
      writer.writeTensorData(bytes);
      bytesWritten += declared[i]!.nbytes;
      options.onProgress?.({ tensor: spec.name, index: i + 1, count: specs.length, bytesWritten, bytesTotal });
    }
    return writer.finish().size;
  } catch (error) {
    writer.abort();
    throw error;
  }
}

/** A probe's head goes into a model whose family carries the attentive classifier (a family trait). */
const PROBE_FAMILIES = HEAD_FAMILIES;

/** Adds a separate probe file's head to a mapped encoder; its tensors join the encoder's. */
function attachProbe(mapped: MappedModel, probe: Checkpoint, options: ConvertOptions): TensorMap {
  const family = mapped.parts.family;
  if (!PROBE_FAMILIES.includes(family))
    throw new ConvertError('CONVERT_BAD_OPTION', `a probe head belongs to ${PROBE_FAMILIES.join(', ')} models, not ${family}`);
  if (mapped.parts.head)
    throw new ConvertError('CONVERT_BAD_OPTION', 'the checkpoint already has a classifier head; a second one (the probe) has nowhere to go');
  const p = mapMetaProbe(probe, mapped.parts.enc, options.probeHeads);
  mapped.parts.head = p.head;
  mapped.notes.push(
    `head from the probe ${probe.path}${p.entry ? ` (entry '${p.entry}')` : ''}: ${p.head.nClasses} classes, ${p.head.depth} self-attention blocks`,
  );
  return p.map;
}

function leftovers(
  maps: readonly TensorMap[],
  predictorMaps: readonly TensorMap[],
  layout: string,
  allowUnmapped: boolean,
): { unmapped: string[]; ignored: string[] } {
  const unmapped = maps.flatMap((m) => m.leftovers().unmapped);
  const ignored = maps.flatMap((m) => m.leftovers().ignored);
  if (unmapped.length > 0 && !allowUnmapped) {
    const inPredictor = predictorMaps.some((m) => m.leftovers().unmapped.length > 0);
    throw new ConvertError(
      'CONVERT_UNMAPPED_TENSORS',
      `${unmapped.length} tensors of this ${layout} have no mapping (--allow-unmapped skips them${inPredictor ? '; --no-predictor converts the encoder alone' : ''}): ${listed(unmapped)}`,
    );
  }
  return { unmapped, ignored };
}

/** Adds dino.txt's vision head and text tower (a second file) to the mapped DINOv3 backbone. */
async function attachText(mapped: MappedModel, text: Checkpoint, options: ConvertOptions): Promise<TensorMap> {
  if (mapped.parts.family !== 'dinov3')
    throw new ConvertError('CONVERT_BAD_OPTION', `--backbone must be a DINOv3 backbone .pth for dino.txt, not a ${mapped.parts.family} checkpoint`);
  const vocab = options.vocab ?? defaultVocabPath(text.path);
  const merges = readBpeMerges(vocab, options.vocab !== undefined);
  const t = await mapMetaDinotxt(text, mapped.parts.enc, merges, options.textHeads);
  mapped.parts.text = t.text;
  // the dino.txt file names the model (its backbone is one part of it): its name without the release hash
  mapped.parts.name = basename(text.path)
    .replace(/\.(pth|pt)$/i, '')
    .replace(/-[0-9a-f]{8}$/i, '');
  mapped.notes.push(
    `dino.txt from ${text.path}: vision head ${t.text.visionNLayer} blocks; text tower ${t.text.nLayer} blocks of width ${t.text.embedDim}, ${t.text.nHead} heads; ${t.text.merges.length} merges from ${vocab}`,
  );
  return t.map;
}

async function convertSource(
  source: Source,
  probe: Checkpoint | null,
  out: string,
  options: ConvertOptions,
  text: Checkpoint | null = null,
): Promise<ConvertSummary> {
  const dtype = options.dtype ?? 'f32';
  if (!WEIGHT_DTYPES.includes(dtype))
    throw new ConvertError('CONVERT_BAD_OPTION', `dtype '${String(dtype)}' is not one of ${WEIGHT_DTYPES.join(', ')}`);
  if (probe && options.noHead) throw new ConvertError('CONVERT_BAD_OPTION', '--probe adds a classifier head, which --no-head leaves out');
  const license = options.license === undefined ? undefined : checkLicense(options.license, '--license');
  const mapping = detectMapping(source, options.family);
  const mapped = await mapping.map(source, {
    nHead: options.nHead,
    imgSize: options.imgSize,
    nFrames: options.nFrames,
    predNHead: options.predNHead,
    entry: options.entry,
    acExtrinsics: options.acExtrinsics,
    noPredictor: options.noPredictor,
  });
  if (options.entry !== undefined && mapped.sourceEntry === null)
    throw new ConvertError('CONVERT_BAD_OPTION', `--entry names a Meta pickle entry; this ${mapping.layout} checkpoint has none`);
  if (options.acExtrinsics && mapped.parts.pred?.kind !== 'ac')
    throw new ConvertError('CONVERT_BAD_OPTION', '--ac-extrinsics applies to a V-JEPA 2-AC predictor, which this checkpoint does not have');
  mapped.parts.license = resolveLicense(license, source, mapping);
  const predictorMaps = mapped.extraMaps ?? [];
  const maps = [
    mapped.map,
    ...predictorMaps,
    ...(probe ? [attachProbe(mapped, probe, options)] : []),
    ...(text ? [await attachText(mapped, text, options)] : []),
  ];
  const { unmapped, ignored } = leftovers(maps, predictorMaps, mapping.layout, options.allowUnmapped ?? false);
  const outputs = trimmed(mapped, new Map(maps.flatMap((m) => [...m.outputs])), options);
  const hparams = validatedHparams(mapped.parts, FILE_TYPE[dtype]);
  const specs = expectedTensors(hparams);
  matchOutputs(specs, outputs, mapping.layout);
  const nonFinite: { tensor: string; count: number }[] = [];
  const bytes = await writeModel(out, hparams, specs, outputs, options, dtype, nonFinite);
  return {
    out,
    family: hparams.family,
    mapping: mapping.id,
    layout: mapping.layout,
    dtype,
    sourceEntry: mapped.sourceEntry,
    tensors: specs.length,
    bytes,
    ignored,
    skippedUnmapped: unmapped,
    nonFinite,
    notes: mapped.notes,
    hparams,
  };
}

/** Converts a checkpoint (file or folder), with an optional separate probe file, into one GGUF file at `out`. */
export async function convertCheckpoint(src: string, out: string, options: ConvertOptions = {}): Promise<ConvertSummary> {
  const source = await openSource(src);
  if (source.checkpoint.format === 'torch-zip' && isDinotxtCheckpoint(source.checkpoint)) return convertDinotxt(source, out, options);
  if (options.backbone !== undefined || options.vocab !== undefined || options.textHeads !== undefined) {
    await source.checkpoint.close();
    throw new ConvertError('CONVERT_BAD_OPTION', `--backbone, --vocab and --text-heads are for a dino.txt head-and-text file; ${src} is not one`);
  }
  let probe: Checkpoint | null = null;
  try {
    if (options.probe !== undefined) probe = await openCheckpoint(options.probe);
    return await convertSource(source, probe, out, options);
  } finally {
    await probe?.close();
    await source.checkpoint.close();
  }
}

/** The dino.txt file `text` with its backbone (options.backbone) as the source the conversion maps. */
async function convertDinotxt(text: Source, out: string, options: ConvertOptions): Promise<ConvertSummary> {
  let backbone: Source | null = null;
  try {
    if (options.backbone === undefined)
      throw new ConvertError(
        'CONVERT_BAD_OPTION',
        `${text.path} is dino.txt's vision head and text encoder; give its DINOv3 backbone with --backbone BACKBONE.pth`,
      );
    if (options.probe !== undefined)
      throw new ConvertError('CONVERT_BAD_OPTION', '--probe adds a classifier head, which a dino.txt model has no place for');
    backbone = await openSource(options.backbone);
    if (backbone.checkpoint.format === 'torch-zip' && isDinotxtCheckpoint(backbone.checkpoint))
      throw new ConvertError('CONVERT_BAD_OPTION', `--backbone ${options.backbone} is a dino.txt head-and-text file too; give the backbone .pth`);
    return await convertSource(backbone, null, out, options, text.checkpoint);
  } finally {
    await backbone?.checkpoint.close();
    await text.checkpoint.close();
  }
}

export interface DetectedFamily {
  family: Family;
  mapping: string;
  layout: string;
}

/** Which mapping (and so which GGUF family) `convertCheckpoint` would use for `src`. */
export async function detectFamily(src: string, family?: string): Promise<DetectedFamily> {
  const source = await openSource(src);
  try {
    const m = detectMapping(source, family);
    return { family: m.familyFor?.(source) ?? m.family, mapping: m.id, layout: m.layout };
  } finally {
    await source.checkpoint.close();
  }
}
