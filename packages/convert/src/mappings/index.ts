// Which mapping reads a source: from config.json's model_type, from the keys of a Meta pickle or a dinov2 / dinov3 hub file, or
// from the user's --family (a mapping id, or a GGUF family name resolved by container).
import type { Family } from '@jepa/gguf';
import { ConvertError } from '../errors.js';
import { valueAt } from '../readers/state-dict.js';
import type { Source } from '../source.js';
import { dinov2Hub, isDinov2Hub } from './dinov2-hub.js';
import { hfDinov3 } from './hf-dinov3.js';
import { hfIjepa } from './hf-ijepa.js';
import { hfVideomae } from './hf-videomae.js';
import { HF_VIT_MODEL_TYPES, hfVit } from './hf-vit.js';
import { hfVivit } from './hf-vivit.js';
import { hfVjepa2 } from './hf-vjepa2.js';
import { lejepa } from './lejepa.js';
import { levjepa } from './levjepa.js';
import { lewm } from './lewm.js';
import { isMetaDinov3, metaDinov3 } from './meta-dinov3.js';
import { metaIjepa } from './meta-ijepa.js';
import { metaVjepa } from './meta-vjepa.js';
import { metaVjepa2 } from './meta-vjepa2.js';
import { isMetaAcPredictor, metaVjepa2Ac } from './meta-vjepa2-ac.js';
import { metaVjepa21 } from './meta-vjepa2-1.js';
import type { Mapping } from './types.js';

export const MAPPINGS: readonly Mapping[] = [
  hfIjepa,
  metaIjepa,
  metaVjepa,
  hfVjepa2,
  metaVjepa2,
  metaVjepa2Ac,
  metaVjepa21,
  hfVit,
  dinov2Hub,
  lejepa,
  lewm,
  levjepa,
  hfVideomae,
  hfVivit,
  hfDinov3,
  metaDinov3,
];

const BY_MODEL_TYPE: Record<string, Mapping> = {
  ijepa: hfIjepa,
  vjepa2: hfVjepa2,
  levjepa,
  vitv2: lejepa,
  videomae: hfVideomae,
  vivit: hfVivit,
  dinov3_vit: hfDinov3,
  ...Object.fromEntries(HF_VIT_MODEL_TYPES.map((t) => [t, hfVit])),
};

type SideFiles = Pick<Source, 'config'>;

function isLewmConfig(side: SideFiles): boolean {
  const c = side.config;
  return c !== null && typeof c.encoder === 'object' && c.encoder !== null && c.model_type === undefined;
}

/** From the side files alone: an HF folder or a LeWM config. */
export function mappingFromConfig(side: SideFiles): Mapping | null {
  const type = side.config?.model_type;
  if (typeof type === 'string') {
    const m = BY_MODEL_TYPE[type];
    if (!m)
      throw new ConvertError(
        'CONVERT_UNKNOWN_FAMILY',
        `config.json: model_type '${type}' is not one this converter reads (${Object.keys(BY_MODEL_TYPE).join(', ')})`,
      );
    return m;
  }
  return isLewmConfig(side) ? lewm : null;
}

/** Tensor names under the first entry of a Meta pickle that has them. */
function metaNames(source: Source): string[] {
  for (const entry of ['target_encoder', 'ema_encoder', 'encoder']) {
    if (valueAt(source.checkpoint.root, entry) !== undefined) {
      return [...source.checkpoint.tensors.keys()].filter((n) => n.startsWith(`${entry}.`));
    }
  }
  return [];
}

/** V-JEPA v1 pretraining keeps 2 mask tokens, V-JEPA 2 keeps 10: the predictor tells them apart when present. */
function predictorMaskTokens(source: Source): number | null {
  const names = [...source.checkpoint.tensors.keys()].filter((n) => /^predictor\..*mask_tokens\.\d+$/.test(n));
  return names.length > 0 ? names.length : null;
}

export function mappingFromCheckpoint(source: Source): Mapping {
  if (source.checkpoint.format !== 'torch-zip') {
    throw new ConvertError('CONVERT_UNKNOWN_FAMILY', `${source.path}: a safetensors file without a config.json model_type; give --family`);
  }
  if (isDinov2Hub(source)) return dinov2Hub;
  if (isMetaDinov3(source)) return metaDinov3;
  // V-JEPA 2-AC before the masked-predictor tells: its predictor has no mask tokens but an action embed.
  if (isMetaAcPredictor(source)) return metaVjepa2Ac;
  const names = metaNames(source);
  if (names.some((n) => n.endsWith('patch_embed_img.proj.weight'))) return metaVjepa21;
  const patch = names.find((n) => n.endsWith('patch_embed.proj.weight'));
  if (!patch)
    throw new ConvertError(
      'CONVERT_UNKNOWN_FAMILY',
      `${source.path}: no Meta encoder entry with a patch_embed (target_encoder / ema_encoder / encoder); give --family`,
    );
  if (source.checkpoint.tensors.get(patch)!.shape.length === 4) return metaIjepa;
  const maskTokens = predictorMaskTokens(source);
  if (maskTokens !== null) return maskTokens <= 2 ? metaVjepa : metaVjepa2;
  // No predictor to tell by: the release containers differ (.pth.tar for V-JEPA, .pt for V-JEPA 2).
  return /\.pth\.tar$/i.test(source.checkpoint.path) ? metaVjepa : metaVjepa2;
}

/** `--family`: a mapping id, or a family name narrowed by the container and config. */
export function mappingFromName(name: string, source: Source): Mapping {
  const byId = MAPPINGS.find((m) => m.id === name);
  if (byId) return byId;
  const candidates = MAPPINGS.filter((m) => m.family === (name as Family));
  if (candidates.length === 0) {
    throw new ConvertError(
      'CONVERT_BAD_OPTION',
      `--family '${name}' is none of ${[...new Set(MAPPINGS.flatMap((m) => [m.family, m.id]))].join(', ')}`,
    );
  }
  if (candidates.length === 1) return candidates[0]!;
  const fromConfig = mappingFromConfig(source);
  if (fromConfig && candidates.includes(fromConfig)) return fromConfig;
  const torch = source.checkpoint.format === 'torch-zip';
  if (torch && candidates.includes(metaVjepa2Ac) && isMetaAcPredictor(source)) return metaVjepa2Ac;
  if (torch && candidates.includes(dinov2Hub) && isDinov2Hub(source)) return dinov2Hub;
  const pick = candidates.find((m) => m.id.startsWith(torch ? 'meta-' : 'hf-'));
  if (!pick)
    throw new ConvertError(
      'CONVERT_BAD_OPTION',
      `--family '${name}': no ${torch ? 'torch' : 'safetensors'} layout; use one of ${candidates.map((m) => m.id).join(', ')}`,
    );
  return pick;
}

export function detectMapping(source: Source, family?: string): Mapping {
  if (family !== undefined) return mappingFromName(family, source);
  return mappingFromConfig(source) ?? mappingFromCheckpoint(source);
}
