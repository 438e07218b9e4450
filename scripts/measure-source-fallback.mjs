#!/usr/bin/env node
// Measures @jepa/addon's source-build fallback as a user meets it: every packed tarball except the
// prebuilt @jepa/addon-linux-x64 installed with npm into a fresh project (so no prebuilt matches),
// npm's wall time, @jepa/addon's own lines, and then `npx jepa devices` on the binary it built.
//
//   pnpm build && pnpm pack:all && node scripts/measure-source-fallback.mjs
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(import.meta.url), '../..');
const packed = JSON.parse(readFileSync(join(repo, 'tmp/pack/manifest.json'), 'utf8'));
const ours = Object.fromEntries(packed.filter((p) => p.name !== '@jepa/addon-linux-x64').map((p) => [p.name, `file:${join(repo, p.tarball)}`]));
const project = mkdtempSync(join(tmpdir(), 'jepa-fallback-'));
const manifest = { name: 'jepa-fallback', version: '0.0.0', private: true, type: 'module', dependencies: ours, overrides: ours };
writeFileSync(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);

// npm hides install scripts' output unless --foreground-scripts; a user who asks sees these lines
const t0 = performance.now();
const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--foreground-scripts'], {
  cwd: project,
  encoding: 'utf8',
  maxBuffer: 256 * 2 ** 20,
});
const seconds = (performance.now() - t0) / 1000;
const said = `${install.stdout}\n${install.stderr}`.split('\n').filter((l) => l.startsWith('jepa: '));
const devices = spawnSync('npx', ['jepa', 'devices'], { cwd: project, encoding: 'utf8' });
const report = {
  machine: `${cpus()[0]?.model}, ${cpus().length} cores`,
  npmExit: install.status,
  seconds: Number(seconds.toFixed(1)),
  addonSaid: said,
  devices: devices.stdout.trim().split('\n').slice(0, 1),
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
if (install.status !== 0) process.stderr.write(install.stderr.slice(-4000));
if (!process.env.JEPA_KEEP_INSTALL) rmSync(project, { recursive: true, force: true });
process.exit(install.status === 0 && devices.status === 0 ? 0 : 1);
