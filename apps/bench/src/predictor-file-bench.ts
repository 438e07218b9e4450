// jepa-bench predictor --model FILE: the masked predictor of a given GGUF (a converted V-JEPA 2 / 2.1,
// I-JEPA or V-JEPA v1 checkpoint at real size) timed per item, one input's context -> targets.
// --with-encoder times the encoder pass it reads first (for the 2.1 g/G predictors the 4 hierarchy
// levels) plus the predictor.
import { statSync } from 'node:fs';
import { FAMILY_TRAITS } from '@jepa/gguf';
import { Model, predictorEncoderOutput, predictorTokens, type PredictInput } from '@jepa/graph';
import { median, sample } from './stats.js';

export interface PredictorFileOptions {
  model: string;
  threads: number;
  repeat: number;
  warmup: number;
  /** Tokens of the synthetic encoder output; default the file's trained clip (n_frames/tubelet · grid²). */
  tokens?: number;
  full?: boolean;
  flash: boolean;
  withEncoder?: boolean;
}

export interface PredictorFileRow {
  bench: string;
  dtype: string;
  threads: number;
  shape: string;
  fileMiB: number;
  firstCallMs: number;
  medianMs: number;
  samples: number[];
}

const FILE_TYPES: Record<number, string> = { 0: 'f32', 1: 'f16', 7: 'q8_0', 2: 'q4_0', 15: 'q4_k', 32: 'bf16' };

const wave = (n: number, scale: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.0013) * scale);

/** context = target = every id with --full (the HF default), else even ids -> odd ids. */
function split(n: number, full: boolean | undefined): { contextIds: number[]; targetIds: number[] } {
  const all = Array.from({ length: n }, (_, i) => i);
  return full ? { contextIds: all, targetIds: all } : { contextIds: all.filter((i) => i % 2 === 0), targetIds: all.filter((i) => i % 2 === 1) };
}

export async function runPredictorFile(o: PredictorFileOptions): Promise<PredictorFileRow[]> {
  const model = await Model.load(o.model, { threads: o.threads });
  try {
    const { enc, pred } = model.spec;
    if (pred?.kind !== 'masked') throw new Error(`${o.model} has no masked predictor`);
    const output = predictorEncoderOutput(model.spec);
    const predictor = model.createPredictorContext({ noFlash: !o.flash });
    const encoder = o.withEncoder ? model.createContext({ output, noFlash: !o.flash }) : null;
    const n = encoder ? enc.nPatches : (o.tokens ?? enc.nPatches);
    const ids = split(n, o.full);
    let run: () => Promise<unknown>;
    if (encoder) {
      // image families (I-JEPA) take one NCHW image, video families the trained clip
      const frames = FAMILY_TRAITS[model.spec.family].video ? [enc.nFrames] : [];
      const clip = {
        data: wave(enc.inChans * enc.nFrames * enc.imgSize * enc.imgSize, 1.5),
        shape: [1, enc.inChans, ...frames, enc.imgSize, enc.imgSize],
      };
      run = async () => predictor.predict({ ...predictorTokens(await encoder.encode(clip)), ...ids });
    } else {
      const input: PredictInput = { tokens: wave(n * pred.embedInDim, 1.2), dim: pred.embedInDim, ...ids };
      run = () => predictor.predict(input);
    }
    const t0 = performance.now();
    await run();
    const first = performance.now() - t0;
    const samples = await sample(run, o.repeat, o.warmup);
    predictor.dispose();
    encoder?.dispose();
    const what = `${pred.embedInDim}-wide tokens (${output}), ${pred.embedDim}-d x ${pred.nLayer}, ${pred.nHead} heads, out ${pred.outDim}`;
    process.stderr.write(`predictor ${o.model}: ${median(samples).toFixed(1)} ms\n`);
    return [
      {
        bench: `${encoder ? `encoder (${enc.embedDim}/${enc.nLayer}, ${output}) + ` : ''}predictor of ${model.spec.name}: ${what}`,
        dtype: FILE_TYPES[model.spec.fileType ?? 0] ?? `file_type ${model.spec.fileType}`,
        threads: o.threads,
        shape: `${ids.contextIds.length} context + ${ids.targetIds.length} target of ${n} ids${encoder ? ` (input ${enc.nFrames}x${enc.imgSize}²)` : ''}`,
        fileMiB: statSync(o.model).size / 2 ** 20,
        firstCallMs: first,
        medianMs: median(samples),
        samples,
      },
    ];
  } finally {
    model.dispose();
  }
}
