#!/usr/bin/env node
// Folds what scripts/gpu-check.sh left in OUT (carry.json, steps.tsv, machine.json, checks.json,
// bench.json, torch.json) into OUT/report.json and OUT/report.md. A part that is missing (a step
// skipped, failed or cut short) is reported as missing, never filled in.
//   node scripts/gpu/report.mjs OUT
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const out = process.argv[2];
if (!out) {
  process.stderr.write('usage: node scripts/gpu/report.mjs OUT\n');
  process.exit(2);
}

/** The bench presets, and the reference fixture whose GPU check speaks for each one's family. */
const FIXTURE_OF = { 'vit-b16': 'hfvit', 'vit-h14': 'ijepa', 'vit-l16-video': 'vjepa2', 'vit-ti14': 'hfvit' };
const TARGET = 0.8;
const TARGET_BATCH = 32;

function json(name) {
  const p = join(out, name);
  if (!existsSync(p)) return null;
  try {
    return JSON.parse(readFileSync(p, 'utf8'));
  } catch (err) {
    return { unreadable: String(err) };
  }
}

function steps() {
  const p = join(out, 'steps.tsv');
  if (!existsSync(p)) return [];
  return readFileSync(p, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const [step, status, seconds] = line.split('\t');
      return { step, status, seconds: Number(seconds) };
    });
}

const carry = json('carry.json');
const machine = json('machine.json');
const checks = json('checks.json');
const bench = json('bench.json');
const torch = json('torch.json');
const results = checks?.results ?? [];
const gpu = machine?.devices?.find((d) => d.type === 'gpu') ?? null;

function torchRow(preset, dtype, batch) {
  return torch?.rows?.find((r) => r.model === preset && r.dtype === dtype && r.batch === batch) ?? null;
}

function parityOf(preset, dtype) {
  const folder = FIXTURE_OF[preset];
  const r = results.find((c) => c.name === `${folder} ${dtype} meets the tier of its device`);
  return r ? { check: r.name, pass: r.pass, summary: r.summary } : null;
}

const rows = (bench?.rows ?? []).map((r) => {
  const fp16 = torchRow(r.preset, 'fp16', r.batch);
  const bf16 = torchRow(r.preset, 'bf16', r.batch);
  const ratio = (t, key) => (t ? r.itemsPerSecond / t[key] : null);
  return {
    model: r.preset,
    title: r.model,
    dtype: r.dtype,
    batch: r.batch,
    tokens: r.tokens,
    jepa: {
      msPerItem: r.msPerItem,
      itemsPerSecond: r.itemsPerSecond,
      deviceMiB: r.deviceMiB ?? null,
      graphSetupMs: r.graphSetupMs,
      versus: r.versus ?? null,
    },
    torchFp16: fp16 && {
      msPerItemDevice: fp16.ms_per_item_device,
      itemsPerSecondDevice: fp16.items_per_s_device,
      itemsPerSecondHost: fp16.items_per_s_host,
      peakMiB: fp16.peak_mem_mib,
    },
    torchBf16: bf16 && {
      msPerItemDevice: bf16.ms_per_item_device,
      itemsPerSecondDevice: bf16.items_per_s_device,
      itemsPerSecondHost: bf16.items_per_s_host,
      peakMiB: bf16.peak_mem_mib,
    },
    ratioVsFp16Device: ratio(fp16, 'items_per_s_device'),
    ratioVsFp16Host: ratio(fp16, 'items_per_s_host'),
    parity: parityOf(r.preset, r.dtype),
  };
});

const targetRows = rows.filter((r) => r.dtype === 'f16' && r.batch === TARGET_BATCH);
const target = {
  rule: `jepa f16 items/s >= ${TARGET} x PyTorch fp16 (CUDA-event timed) at batch ${TARGET_BATCH}, every model`,
  verdict:
    targetRows.length === 0 || targetRows.some((r) => r.ratioVsFp16Device === null)
      ? 'not measured'
      : targetRows.every((r) => r.ratioVsFp16Device >= TARGET)
        ? 'met'
        : 'missed',
  rows: targetRows.map((r) => ({ model: r.model, ratio: r.ratioVsFp16Device })),
};

const report = {
  written: new Date().toISOString(),
  carry,
  steps: steps(),
  machine: machine && { cpu: machine.cpu, cores: machine.cores, node: machine.node, ggml: machine.ggml, build: machine.build, gpu },
  torch: torch && {
    torch: torch.torch,
    transformers: torch.transformers,
    device: torch.device,
    errors: torch.errors ?? [],
    skipped: torch.skipped ?? [],
  },
  checks: { passed: results.filter((c) => c.pass).length, failed: results.filter((c) => !c.pass).length, results },
  bench: { device: bench?.device ?? null, errors: bench?.errors ?? [], skipped: bench?.skipped ?? [] },
  rows,
  target,
};
writeFileSync(join(out, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);

const f = (x, digits = 2) => (x === null || x === undefined || Number.isNaN(x) ? '—' : x.toFixed(digits));
const md = [
  '# GPU check report',
  '',
  `Written ${report.written}${carry ? ` from revision ${carry.revision}, ${carry.totalMiB.toFixed(1)} of ${carry.limitMiB} MiB carried` : ''}.`,
  '',
  `- GPU: ${gpu ? `${gpu.description} (${gpu.name}), ${(gpu.memoryTotal / 2 ** 30).toFixed(0)} GiB` : 'none seen by the addon'}`,
  `- host: ${machine ? `${machine.cpu}, ${machine.cores} cores; node ${machine.node}; ggml ${machine.ggml}` : '—'}`,
  `- PyTorch: ${torch?.torch ? `${torch.torch}, transformers ${torch.transformers}, on ${torch.device}` : 'not run'}`,
  `- target: ${target.rule}: **${target.verdict}**`,
  '',
  '## Steps',
  '',
  '| step | status | seconds |',
  '|---|---|---|',
  ...report.steps.map((s) => `| ${s.step} | ${s.status} | ${s.seconds} |`),
  '',
  `## Checks: ${report.checks.passed} passed, ${report.checks.failed} failed`,
  '',
  '| check | verdict | seconds | summary |',
  '|---|---|---|---|',
  ...results.map((c) => `| ${c.name} | ${c.pass ? 'pass' : '**FAIL**'} | ${f(c.ms / 1000, 1)} | ${c.summary.replaceAll('|', '\\|')} |`),
  '',
  '## Encoder throughput',
  '',
  'jepa: host float32 in, host float32 out (patchify, upload and download included). PyTorch device: CUDA-event timed',
  'forward on resident inputs; host: the same with the upload and the download, like jepa.',
  '',
  '| model | jepa dtype | batch | jepa ms/item | jepa items/s | jepa GPU MiB | PyTorch fp16 items/s (device / host) | PyTorch bf16 items/s (device / host) | PyTorch fp16 peak MiB | jepa ÷ fp16 (device / host) | parity (the family fixture, same device) | tokens vs the first dtype (worst cos) |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.title} | ${r.dtype} | ${r.batch} | ${f(r.jepa.msPerItem)} | ${f(r.jepa.itemsPerSecond, 1)} | ${f(r.jepa.deviceMiB, 0)} | ${r.torchFp16 ? `${f(r.torchFp16.itemsPerSecondDevice, 1)} / ${f(r.torchFp16.itemsPerSecondHost, 1)}` : '—'} | ${r.torchBf16 ? `${f(r.torchBf16.itemsPerSecondDevice, 1)} / ${f(r.torchBf16.itemsPerSecondHost, 1)}` : '—'} | ${f(r.torchFp16?.peakMiB, 0)} | ${f(r.ratioVsFp16Device)} / ${f(r.ratioVsFp16Host)} | ${r.parity ? (r.parity.pass ? 'pass' : '**FAIL**') : '—'} | ${r.jepa.versus ? `${f(r.jepa.versus.minCos, 6)} vs ${r.jepa.versus.dtype}` : '—'} |`,
  ),
  '',
  ...[...(bench?.errors ?? []), ...(torch?.errors ?? [])].map((e) => `- error: ${e.model} ${e.dtype ?? ''} ${e.batch ?? ''}: ${e.error}`),
  ...[...(bench?.skipped ?? []), ...(torch?.skipped ?? [])].map((e) => `- skipped: ${e.model} ${e.dtype ?? ''} ${e.batch ?? ''}: ${e.why}`),
  '',
].join('\n');
writeFileSync(join(out, 'report.md'), md);
process.stderr.write(
  `gpu report: ${report.checks.passed} checks passed, ${report.checks.failed} failed; ${rows.length} bench rows; target ${target.verdict}\n`,
);
