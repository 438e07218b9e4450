import type { Command } from 'commander';
import { ggmlTypeInfo, loadModelSpec, type GgufValue, type ModelSpec } from '@jepa/gguf';
import { printLines } from '../display-text.js';
import { aboutFile } from '../user-error.js';
import { localModel } from '../hub-model.js';

function formatValue(v: GgufValue): string {
  if (v.type === 'array') {
    const items = Array.from(v.value as ArrayLike<unknown>);
    const shown = items.slice(0, 8).map((x) => (typeof x === 'object' && x !== null ? '[…]' : String(x)));
    return `[${shown.join(', ')}${items.length > 8 ? `, … (${items.length})` : ''}]`;
  }
  return typeof v.value === 'string' ? JSON.stringify(v.value) : String(v.value);
}

function summary(spec: ModelSpec): string[] {
  const e = spec.enc;
  const lines = [
    `name:       ${spec.name}`,
    `family:     ${spec.family}${spec.license ? `  (license ${spec.license})` : ''}`,
    `encoder:    D ${e.embedDim}, ${e.nLayer} layers, ${e.nHead} heads (hd ${e.headDim}), FFN ${e.ffnDim}${e.ffnKind === 'swiglu' ? ' SwiGLU' : ''}, act ${e.act}${e.qkvBias ? '' : ', no qkv bias'}`,
    `tokens:     patch ${e.patchSize}${e.tubeletSize > 1 ? `, tubelet ${e.tubeletSize}` : ''}, ${e.imgSize}px` +
      `${e.nFrames > 1 ? `, ${e.nFrames} frames` : ''}, positions ${e.pos}${e.rope ? ` (${e.rope.layout})` : ''}` +
      `${e.nCls ? ', CLS' : ''}${e.nReg ? `, ${e.nReg} registers` : ''}${e.layerScale ? ', layer scale' : ''}` +
      `${e.attnMode !== 'full' ? `, ${e.attnMode} attention` : ''}${e.finalNorm ? '' : ', no final norm'}`,
  ];
  if (spec.pred) {
    const p = spec.pred;
    const tokens = p.kind === 'masked' ? `, ${p.nMaskTokens} mask token${p.nMaskTokens === 1 ? '' : 's'}` : '';
    const where = p.kind !== 'masked' ? '' : p.rope ? `${tokens}, rope3d ${p.rope.layout}` : `${tokens}, a table of ${p.posRows} positions`;
    lines.push(`predictor:  ${p.kind}, D ${p.embedDim}, ${p.nLayer} layers, ${p.nHead} heads${where}`);
  }
  if (spec.head) {
    const h = spec.head;
    const kind = h.kind === 'linear' ? `linear on ${h.pool === 'mean' ? 'the token mean (fc_norm)' : 'token 0'}` : 'attentive';
    lines.push(`head:       ${kind}, ${h.nClasses} classes${spec.labels ? ` (${spec.labels.slice(0, 3).join(', ')}, …)` : ''}`);
  }
  if (spec.text) {
    const t = spec.text;
    lines.push(
      `text:       dino.txt: vision head ${t.visionNLayer} blocks (SwiGLU ${t.visionFfnDim}); text tower W ${t.embedDim}, ${t.nLayer} causal layers, ${t.nHead} heads, ${t.context} tokens, vocabulary ${t.vocabSize} (${t.merges.length} merges); vectors ${t.outDim}-d, logit scale ${t.logitScale.toFixed(4)}`,
    );
  }
  const p = spec.pre;
  lines.push(
    `preprocess: ${p.resize.mode === 'short' ? `shortest edge ${p.resize.size}` : `squash ${p.resize.size}`}, crop ${p.crop}, ${p.resample}, rescale ${p.rescale.toPrecision(6)}${p.offset ? ` then ${p.offset > 0 ? '+' : '−'}${Math.abs(p.offset)}` : ''}, mean [${p.mean.map((v) => v.toFixed(3)).join(', ')}], std [${p.std.map((v) => v.toFixed(3)).join(', ')}]`,
  );
  const bytes = [...spec.tensors.values()].reduce((a, t) => a + t.nbytes, 0);
  lines.push(`tensors:    ${spec.tensors.size}, ${(bytes / 2 ** 20).toFixed(1)} MiB`);
  return lines;
}

export function infoCommand(program: Command): void {
  program
    .command('info')
    .description('validate a model file and print its hyperparameters and tensors')
    .argument('<model>', 'a .gguf model')
    .option('--json', 'print JSON')
    .option('--kv', 'print every metadata key')
    .option('--no-tensors', 'leave out the tensor table')
    .action(async (model: string, opts: { json?: boolean; kv?: boolean; tensors: boolean }) => {
      const path = await localModel(model, '');
      const spec = aboutFile(path, path, () => loadModelSpec(path));
      const tensors = [...spec.tensors.values()].map((t) => ({
        name: t.name,
        type: ggmlTypeInfo(t.type).name,
        shape: t.shape,
        offset: t.offset,
        nbytes: t.nbytes,
      }));
      if (opts.json) {
        const { tensors: _t, header: _h, ...hparams } = spec;
        // the merges (48,894 for CLIP's vocabulary) are counted, not listed
        const text = hparams.text && { ...hparams.text, merges: hparams.text.merges.length };
        const out: Record<string, unknown> = { path, ...hparams, text };
        if (opts.kv) out.metadata = Object.fromEntries([...spec.header.metadata].map(([k, v]) => [k, formatValue(v)]));
        if (opts.tensors) out.tensors = tensors;
        process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        return;
      }
      // names, labels, keys and values are the file's: every line goes out inert (JSON above escapes itself)
      printLines(...summary(spec));
      if (opts.kv) printLines('', 'metadata:', ...[...spec.header.metadata].map(([k, v]) => `  ${k} = ${formatValue(v)}`));
      if (opts.tensors) printLines('', 'tensors:', ...tensors.map((t) => `  ${t.name.padEnd(36)} ${t.type.padEnd(6)} [${t.shape.join(', ')}]`));
    });
}
