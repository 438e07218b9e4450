// dino.txt's second file (dinov3 hub/dinotxt.py: dinov3_vitl16_dinotxt_vision_head_and_text_encoder-HASH.pth, a bare
// state dict) → the text section of a dinov3 model whose backbone is converted from its own .pth. The file records
// no config: widths come from the tensors, the text heads from W / 64 (CLIP's head width; 1280 → 20) or --text-heads.
import { tensorNames, type EncoderHparams, type TextHparams } from '@jepa/gguf';
import { ConvertError } from '../errors.js';
import type { Checkpoint } from '../readers/checkpoint.js';
import { mapBlock, mapNorm, TIMM_BLOCK, type BlockNames } from './blocks.js';
import { countBlocks } from './hparams.js';
import { TensorMap } from './tensor-map.js';

const VISION = 'visual_model.head';
const TEXT = 'text_model.backbone';
const PROJECTION = 'text_model.head.linear_projection.weight';
const LOGIT_SCALE = 'logit_scale';

/** The vision head's SelfAttentionBlock: timm names, layer scale, SwiGLUFFN (w1 gated, w2, w3). */
const VISION_BLOCK: BlockNames = { ...TIMM_BLOCK, ls1: 'ls1.gamma', ls2: 'ls2.gamma', swigluIn: ['mlp.w1', 'mlp.w2'], swigluOut: 'mlp.w3' };
/** The text tower's CausalSelfAttentionBlock. */
const TEXT_BLOCK: BlockNames = {
  ln1: 'attention_norm',
  qkv: 'attention.qkv',
  proj: 'attention.proj',
  ln2: 'ffn_norm',
  fc1: 'feed_forward.fc1',
  fc2: 'feed_forward.fc2',
};

/** CLIP's head width: the released text tower is 1280 wide with 20 heads. */
const CLIP_HEAD_WIDTH = 64;
/** nn.LayerNorm's default, the text tower's and the vision head's. */
const LN_EPS = Math.fround(1e-5);

/** Whether a checkpoint is dino.txt's vision-head-and-text-encoder file. */
export function isDinotxtCheckpoint(c: Checkpoint): boolean {
  return c.tensors.has(LOGIT_SCALE) && c.tensors.has(`${TEXT}.token_embedding.weight`);
}

export interface MappedText {
  text: TextHparams;
  map: TensorMap;
}

/**
 * Maps the file onto `enc` (the backbone's hparams) with the vocabulary's merges (the first vocab − 514 are taken,
 * as CLIP takes 48,894 of its file's). q and k of the vision head stay in the stored order: it has no RoPE.
 */
export async function mapMetaDinotxt(c: Checkpoint, enc: EncoderHparams, vocabMerges: readonly string[], textHeads?: number): Promise<MappedText> {
  const map = new TensorMap(c.tensors, []);
  const [vocabSize, width] = map.matrixShape(`${TEXT}.token_embedding.weight`);
  const nMerges = vocabSize - 514;
  if (nMerges < 0)
    throw new ConvertError('CONVERT_SHAPE_MISMATCH', `'${TEXT}.token_embedding.weight' has ${vocabSize} rows; a CLIP vocabulary has at least 514`);
  if (vocabMerges.length < nMerges)
    throw new ConvertError(
      'CONVERT_BAD_CONFIG',
      `the BPE vocabulary has ${vocabMerges.length} merges; the text tower's ${vocabSize} token rows need ${nMerges} (512 byte pieces + merges + 2 special tokens)`,
    );
  const nHead = textHeads ?? width / CLIP_HEAD_WIDTH;
  if (!Number.isInteger(nHead) || nHead < 1 || width % nHead !== 0)
    throw new ConvertError(
      'CONVERT_BAD_OPTION',
      textHeads === undefined
        ? `the text tower is ${width} wide, not a multiple of CLIP's head width ${CLIP_HEAD_WIDTH}; give its heads with --text-heads`
        : `--text-heads ${textHeads} does not divide the text width ${width}`,
    );
  const [context] = map.matrixShape(`${TEXT}.positional_embedding`);
  const nLayer = countBlocks(map.source.keys(), /^text_model\.backbone\.blocks\.(\d+)\./);
  const visionNLayer = countBlocks(map.source.keys(), /^visual_model\.head\.blocks\.(\d+)\./);
  if (visionNLayer === 0)
    throw new ConvertError('CONVERT_MISSING_TENSOR', `the checkpoint has no '${VISION}.blocks.0.*': dino.txt's vision head is missing`);
  const [ffnDim] = map.matrixShape(`${TEXT}.blocks.0.feed_forward.fc1.weight`);
  const [visionFfnDim, headWidth] = map.matrixShape(`${VISION}.blocks.0.mlp.w1.weight`);
  if (headWidth !== enc.embedDim)
    throw new ConvertError(
      'CONVERT_SHAPE_MISMATCH',
      `the vision head is ${headWidth} wide but the backbone is ${enc.embedDim}: give the backbone this head was trained on`,
    );
  const [outDim] = map.matrixShape(PROJECTION);
  const logitScale = (await map.ref(LOGIT_SCALE).readAsFloat32())[0]!;
  map.consume(LOGIT_SCALE);

  for (let i = 0; i < visionNLayer; i++)
    mapBlock(map, tensorNames.alignBlock(i), `${VISION}.blocks.${i}`, VISION_BLOCK, { swiglu: true, qkvBias: false });
  mapNorm(map, tensorNames.alignNorm, `${VISION}.ln_final`);
  map.copy(tensorNames.textTokenEmbd, `${TEXT}.token_embedding.weight`, 'rows');
  map.copy(tensorNames.textPosEmbd, `${TEXT}.positional_embedding`, 'rows');
  for (let i = 0; i < nLayer; i++) mapBlock(map, tensorNames.textBlock(i), `${TEXT}.blocks.${i}`, TEXT_BLOCK, { qkvBias: false });
  mapNorm(map, tensorNames.textNorm, `${TEXT}.ln_final`);
  map.copy(`${tensorNames.textProj}.weight`, PROJECTION, 'linear');

  return {
    map,
    text: {
      embedDim: width,
      nLayer,
      nHead,
      headDim: width / nHead,
      ffnDim,
      context,
      lnEps: LN_EPS,
      act: 'gelu',
      outDim,
      logitScale,
      merges: vocabMerges.slice(0, nMerges),
      vocabSize,
      startId: vocabSize - 2,
      endId: vocabSize - 1,
      visionNLayer,
      visionFfnDim,
      visionLnEps: LN_EPS,
    },
  };
}
