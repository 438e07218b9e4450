// The networks `jepa-bench peers` compares, each exported once with Debian's python3-torch to an ONNX file
// onnxruntime runs and to the weights this engine converts, so both run the very same weights.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { convertCheckpoint } from '@jepa/convert';
import { writeVitB16Gguf } from './torchvision-vit-gguf.js';

const root = resolve(fileURLToPath(import.meta.url), '../../../../..');

export interface PeerNet {
  readonly id: string;
  readonly title: string;
  /** File stem in the peers folder: `<stem>_tokens.onnx`, `<stem>-<type>.gguf`. */
  readonly stem: string;
  /** Token width. */
  readonly dim: number;
  /** Whether the export in `dir` is there (and current). */
  exported(dir: string): boolean;
  /** Writes the export into `dir`. */
  exportTo(dir: string, log: (s: string) => void): void;
  /** The f32 GGUF of the exported weights. */
  writeF32(dir: string, out: string): Promise<void>;
}

function python(script: string, args: string[], what: string): void {
  const r = spawnSync('/usr/bin/python3', [join(root, 'scripts/bench', script), ...args], { stdio: ['ignore', process.stderr, 'inherit'] });
  if (r.status !== 0) throw new Error(`${what} failed (needs /usr/bin/python3 with python3-torch)`);
}

/** Whether the ONNX export takes any batch (exports before batch sizes were benched took 1 only). */
function batchDynamic(onnxPath: string): boolean {
  const r = spawnSync('/usr/bin/python3', ['-c', BATCH_PROBE, onnxPath], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() === 'dynamic';
}
const BATCH_PROBE =
  'import onnx,sys\nd=onnx.load(sys.argv[1],load_external_data=False).graph.input[0].type.tensor_type.shape.dim[0]\nprint("fixed" if d.dim_value else "dynamic")';

export const VIT_B16: PeerNet = {
  id: 'vit-b16',
  title: 'torchvision ViT-B/16',
  stem: 'vit_b16',
  dim: 768,
  exported: (dir) =>
    existsSync(join(dir, 'vit_b16_tokens.onnx')) && existsSync(join(dir, 'vit_b16.safetensors')) && batchDynamic(join(dir, 'vit_b16_tokens.onnx')),
  exportTo(dir, log) {
    log('exporting torchvision ViT-B/16 with Debian python3-torch (about a minute)');
    python('export_vit_b16.py', [dir], 'the ONNX export (python3-torchvision too)');
  },
  writeF32: (dir, out) => writeVitB16Gguf(join(dir, 'vit_b16.safetensors'), out),
};

function dinov3(id: 'dinov3-s16' | 'dinov3-b16', title: string, dim: number): PeerNet {
  return {
    id,
    title,
    stem: id,
    dim,
    exported: (dir) => existsSync(join(dir, `${id}_tokens.onnx`)) && existsSync(join(dir, `${id}-hf`, 'model.safetensors')),
    exportTo(dir, log) {
      log(`exporting a seeded ${title} with Debian python3-torch`);
      python('export_dinov3.py', [id, dir], 'the ONNX export');
    },
    async writeF32(dir, out) {
      await convertCheckpoint(join(dir, `${id}-hf`), out);
    },
  };
}

export const PEER_NETS: readonly PeerNet[] = [VIT_B16, dinov3('dinov3-s16', 'DINOv3 ViT-S/16', 384), dinov3('dinov3-b16', 'DINOv3 ViT-B/16', 768)];

export function peerNet(id: string): PeerNet {
  const net = PEER_NETS.find((n) => n.id === id);
  if (!net) throw new Error(`--net ${id}: one of ${PEER_NETS.map((n) => n.id).join(', ')}`);
  return net;
}
