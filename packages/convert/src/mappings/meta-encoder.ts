// Shared by the Meta pickles (I-JEPA .pth.tar, V-JEPA .pth.tar, V-JEPA 2 / 2.1 .pt): picking the
// encoder entry, stripping the DDP/wrapper prefixes, and the widths read from the tensors.
import type { Family } from '@jepa/gguf';
import { ConvertError } from '../errors.js';
import { selectStateDict, stripPrefixes, valueAt } from '../readers/state-dict.js';
import type { Source } from '../source.js';
import { TIMM_BLOCK } from './blocks.js';
import { countBlocks, type EncoderFields } from './hparams.js';
import { TensorMap } from './tensor-map.js';
import type { ArchOverrides } from './types.js';

export const META_PREFIXES = ['module.backbone.', 'module.', 'backbone.'];

/** The entries `--entry` may name: where Meta's trainers keep an encoder. */
export const META_ENCODER_ENTRIES = ['encoder', 'target_encoder', 'ema_encoder'] as const;

/** The top-level keys of a pickle (a dict's keys; nothing for other roots). */
export function topLevelEntries(source: Source): string[] {
  const root = source.checkpoint.root;
  return root instanceof Map ? [...root.keys()].map((k) => String(k)) : [];
}

/**
 * The encoder state dict of a Meta pickle: the first of the mapping's `entries` that holds tensors,
 * or exactly the `chosen` one (`--entry`), refused with the entries present when it is absent.
 */
export function selectMetaEncoder(
  source: Source,
  entries: readonly string[],
  ignored: readonly RegExp[],
  chosen?: string,
): { entry: string; map: TensorMap } {
  if (chosen !== undefined) {
    if (!(META_ENCODER_ENTRIES as readonly string[]).includes(chosen)) {
      throw new ConvertError('CONVERT_BAD_OPTION', `--entry '${chosen}' is none of ${META_ENCODER_ENTRIES.join(', ')}`);
    }
    if (valueAt(source.checkpoint.root, chosen) === undefined) {
      throw new ConvertError(
        'CONVERT_BAD_OPTION',
        `--entry '${chosen}': ${source.path} has no such entry; its entries are [${topLevelEntries(source).join(', ')}]`,
      );
    }
  }
  const { key, tensors } = selectStateDict(source.checkpoint.root, chosen === undefined ? entries : [chosen]);
  return { entry: key, map: new TensorMap(stripPrefixes(tensors, META_PREFIXES), ignored) };
}

export interface MetaWidths {
  embedDim: number;
  nLayer: number;
  ffnDim: number;
  inChans: number;
  patchSize: number;
  /** Frames per token of `patch_embed` (1 for a Conv2d kernel). */
  tubeletSize: number;
}

/** Everything the tensors of a timm-style encoder say about its shape. */
export function metaWidths(map: TensorMap, patchName = 'patch_embed.proj.weight'): MetaWidths {
  const k = map.shapeOf(patchName);
  const video = k.length === 5;
  return {
    embedDim: k[0]!,
    nLayer: countBlocks(map.source.keys(), /^blocks\.(\d+)\./),
    ffnDim: map.shapeOf(`blocks.0.${TIMM_BLOCK.fc1}.weight`)[0]!,
    inChans: k[1]!,
    patchSize: k[k.length - 1]!,
    tubeletSize: video ? k[2]! : 1,
  };
}

/** A Meta timm-style encoder's fields: its widths with the heads, and the eps and activation of Meta's ViTs. */
export function metaEncoderFields(w: MetaWidths, nHead: number): Omit<EncoderFields, 'imgSize'> & Pick<EncoderFields, 'tubeletSize'> {
  const { embedDim, nLayer, ffnDim, inChans, patchSize, tubeletSize } = w;
  return { embedDim, nLayer, nHead, ffnDim, patchSize, tubeletSize, inChans, lnEps: Math.fround(1e-6), act: 'gelu' };
}

/** Heads of the released encoders by width (families.md); other widths need --n-head. */
const RELEASED_HEADS: Partial<Record<Family, Record<number, number>>> = {
  ijepa: { 1280: 16, 1408: 16 },
  vjepa: { 1024: 16, 1280: 16 },
  vjepa2: { 1024: 16, 1280: 16, 1408: 22 },
  vjepa2_1: { 768: 12, 1024: 16, 1408: 22, 1664: 26 },
};

export function headsFor(family: Family, embedDim: number, overrides: ArchOverrides): { nHead: number; note: string | null } {
  if (overrides.nHead !== undefined) return { nHead: overrides.nHead, note: null };
  const known = RELEASED_HEADS[family]?.[embedDim];
  if (known === undefined) {
    throw new ConvertError(
      'CONVERT_BAD_CONFIG',
      `a ${family} checkpoint carries no head count and width ${embedDim} is not a released architecture; give it (--n-head)`,
    );
  }
  return { nHead: known, note: `${known} heads: the released ${family} architecture of width ${embedDim}` };
}
