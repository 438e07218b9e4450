#!/usr/bin/env node
// npm's install step for @jepa/addon: use the prebuilt binary of this platform when one is installed
// and loads here; otherwise build from source (cmake-js), saying so. JEPA_NATIVE=1 or JEPA_CUDA=1
// always builds from source. In the repository `pnpm build` builds the addon, so this does nothing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { prebuiltPackage, prebuiltPath } = require('./index.cjs');

function say(line) {
  process.stderr.write(`jepa: ${line}\n`);
}

/** Loads the binary in a child process, so that a crash (a missing library, SIGILL) cannot end the install. */
function loads(path) {
  const probe = spawnSync(process.execPath, ['-e', `process.stdout.write(require(${JSON.stringify(path)}).buildInfo().cpuVariant)`], {
    encoding: 'utf8',
  });
  if (probe.status === 0) return { ok: true, variant: probe.stdout };
  const why = (probe.stderr || '').split('\n').find((l) => /Error|error/.test(l)) ?? `exit ${probe.status ?? probe.signal}`;
  return { ok: false, why: why.trim() };
}

function buildFromSource(reason) {
  say(`${reason}; building the addon from source with cmake-js (needs cmake >= 3.19, a C++17 compiler and git; several minutes)`);
  const started = Date.now();
  for (const script of ['fetch-ggml.mjs', 'build.mjs']) {
    const run = spawnSync(process.execPath, [join(here, script)], { stdio: 'inherit', cwd: here });
    if (run.status !== 0) {
      say(`the source build failed (${script}, exit ${run.status ?? run.signal}); see the output above`);
      process.exit(1);
    }
  }
  say(`built from source in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

function main() {
  if (existsSync(join(here, '../pnpm-workspace.yaml'))) return;
  if (process.env.JEPA_NATIVE === '1' || process.env.JEPA_CUDA === '1') {
    buildFromSource(process.env.JEPA_CUDA === '1' ? 'JEPA_CUDA=1' : 'JEPA_NATIVE=1');
    return;
  }
  const prebuilt = prebuiltPath();
  if (!prebuilt) {
    buildFromSource(`no prebuilt addon for ${process.platform}-${process.arch} (${prebuiltPackage()} is not installed)`);
    return;
  }
  const probe = loads(prebuilt);
  if (!probe.ok) {
    buildFromSource(`the prebuilt addon (${prebuiltPackage()}) does not load here: ${probe.why}`);
    return;
  }
  say(`using the prebuilt addon from ${prebuiltPackage()} (CPU variant ${probe.variant})`);
}

main();
