import { PreprocessError } from './errors.js';
import { validateRecipe, type PreprocessRecipe } from './recipe.js';

/**
 * The shape `@jepa/gguf` gives a model's `jepa.pre.*` keys (PreprocessSpec), restated
 * structurally so this package does not depend on that one.
 */
export interface PreKeys {
  readonly mean: readonly number[];
  readonly std: readonly number[];
  readonly resize: { readonly mode: 'short' | 'squash'; readonly size: number };
  readonly crop: number;
  readonly resample: string;
  readonly rescale: number;
  readonly offset?: number;
  readonly cropRounding: string;
}

function triple(name: string, values: readonly number[]): [number, number, number] {
  if (values.length !== 3) {
    throw new PreprocessError('invalid_recipe', `jepa.pre.${name} has ${values.length} values; RGB input needs 3`);
  }
  return [values[0], values[1], values[2]];
}

/** Maps `jepa.pre.*` (crop_rounding 'round' = torchvision, 'floor' = HF) to a validated PreprocessRecipe. */
export function recipeFromPreKeys(pre: PreKeys): PreprocessRecipe {
  if (pre.resample !== 'bilinear' && pre.resample !== 'bicubic') {
    throw new PreprocessError('invalid_recipe', `jepa.pre.resample '${pre.resample}' is not supported (bilinear or bicubic)`);
  }
  if (pre.cropRounding !== 'round' && pre.cropRounding !== 'floor') {
    throw new PreprocessError('invalid_recipe', `jepa.pre.crop_rounding '${pre.cropRounding}' is not round or floor`);
  }
  const common = {
    mean: triple('mean', pre.mean),
    std: triple('std', pre.std),
    resample: pre.resample === 'bicubic' ? ('bicubic' as const) : ('bilinear' as const),
    rescaleFactor: pre.rescale,
    ...(pre.offset ? { rescaleOffset: pre.offset } : {}),
    cropSize: pre.crop,
    cropRounding: pre.cropRounding === 'round' ? ('torchvision' as const) : ('hf' as const),
  };
  const recipe: PreprocessRecipe =
    pre.resize.mode === 'short'
      ? { ...common, mode: 'shortest_edge', resizeShort: pre.resize.size }
      : { ...common, mode: 'squash', squashSize: pre.resize.size };
  validateRecipe(recipe);
  return recipe;
}
