#!/usr/bin/env node
// Places the pinned ggml at ggml/ (the repository's root, or an installed @jepa/addon's own folder),
// offline except for the npm registry.
//
// Source: the npm package node-llama-cpp@3.21.1, whose llama/gitRelease.bundle is a git
// bundle of llama.cpp at commit 80fb11a (ggml 0.23.0). Both the package tarball and the
// bundle are checked against recorded hashes, and the bundle's HEAD against the commit.
// The clone is kept at tmp/llama.cpp (git-ignored): its gguf-py is the interop reference.
//
// With GitHub access the same ggml is `git clone https://github.com/ggml-org/llama.cpp`
// at 80fb11ac73e66d89eae2c6a91d8a77428fa733ed; point JEPA_GGML_SRC at that checkout
// (or at any folder holding that llama.cpp tree) to skip the npm download.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PIN = {
  npmPackage: 'node-llama-cpp@3.21.1',
  tarballSha512: 'E3N0Ev2Va0wzydvXYFwM9Hvyo07PoWjt8T/9GMc43Cvt8YkV/NU/tYUgEMC1grTPv2o9PRjQi0G3Wb5P/awiMg==',
  bundleSha256: '9336d8aab8f8e6a8919380f3641fe92e57b02fb55df1b6bd083b82491a6293b8',
  commit: '80fb11ac73e66d89eae2c6a91d8a77428fa733ed',
  ggmlVersion: '0.23.0',
};

const here = dirname(fileURLToPath(import.meta.url));
const inRepository = existsSync(join(here, '../pnpm-workspace.yaml'));
const root = inRepository ? resolve(here, '..') : here;
const ggmlDir = join(root, 'ggml');
const stampFile = join(ggmlDir, '.jepa-pin.json');
const work = join(root, 'tmp');
const clone = join(work, 'llama.cpp');

function log(msg) {
  process.stderr.write(`fetch-ggml: ${msg}\n`);
}

function run(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], ...opts }).toString().trim();
}

function hashFile(path, algo, encoding) {
  return createHash(algo).update(readFileSync(path)).digest(encoding);
}

function stampMatches() {
  if (!existsSync(stampFile)) return false;
  try {
    const stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
    return stamp.commit === PIN.commit && existsSync(join(ggmlDir, 'CMakeLists.txt'));
  } catch {
    return false;
  }
}

function cloneFromBundle() {
  mkdirSync(work, { recursive: true });
  const packDir = join(work, 'ggml-pack');
  rmSync(packDir, { recursive: true, force: true });
  mkdirSync(packDir, { recursive: true });
  log(`downloading ${PIN.npmPackage} from the npm registry`);
  const packed = JSON.parse(run('npm', ['pack', PIN.npmPackage, '--json', '--pack-destination', packDir], { cwd: packDir }));
  const tarball = join(packDir, packed[0].filename);
  const sha512 = hashFile(tarball, 'sha512', 'base64');
  if (sha512 !== PIN.tarballSha512) throw new Error(`tarball hash mismatch: sha512-${sha512}, expected sha512-${PIN.tarballSha512}`);
  run('tar', ['-xzf', tarball, '-C', packDir, 'package/llama/gitRelease.bundle']);
  const bundle = join(packDir, 'package/llama/gitRelease.bundle');
  const sha256 = hashFile(bundle, 'sha256', 'hex');
  if (sha256 !== PIN.bundleSha256) throw new Error(`bundle hash mismatch: ${sha256}, expected ${PIN.bundleSha256}`);
  rmSync(clone, { recursive: true, force: true });
  log('cloning llama.cpp from the verified bundle');
  run('git', ['clone', '-q', '--no-checkout', bundle, clone]);
  run('git', ['-C', clone, '-c', 'advice.detachedHead=false', 'checkout', '-q', PIN.commit]);
  rmSync(packDir, { recursive: true, force: true });
}

function main() {
  if (stampMatches()) {
    log(`ggml ${PIN.ggmlVersion} (llama.cpp ${PIN.commit.slice(0, 7)}) already in place`);
    return;
  }
  const src = process.env.JEPA_GGML_SRC ? resolve(process.env.JEPA_GGML_SRC) : clone;
  if (!process.env.JEPA_GGML_SRC && !existsSync(join(clone, '.git'))) cloneFromBundle();
  const head = existsSync(join(src, '.git')) ? run('git', ['-C', src, 'rev-parse', 'HEAD']) : null;
  if (head !== null && head !== PIN.commit) throw new Error(`${src} is at ${head}, expected ${PIN.commit}`);
  const version = readFileSync(join(src, 'ggml/CMakeLists.txt'), 'utf8');
  for (const [part, value] of Object.entries({ MAJOR: 0, MINOR: 23, PATCH: 0 })) {
    if (!new RegExp(`set\\(GGML_VERSION_${part} ${value}\\)`).test(version)) {
      throw new Error(`${src}/ggml is not ggml ${PIN.ggmlVersion}`);
    }
  }
  rmSync(ggmlDir, { recursive: true, force: true });
  cpSync(join(src, 'ggml'), ggmlDir, { recursive: true });
  writeFileSync(stampFile, JSON.stringify({ ...PIN, source: src }, null, 2) + '\n');
  log(`ggml ${PIN.ggmlVersion} placed at ${ggmlDir} (llama.cpp ${PIN.commit.slice(0, 7)})`);
  // outside the repository nothing else reads the clone (the reference scripts use its gguf-py)
  if (!inRepository && !process.env.JEPA_GGML_SRC) rmSync(work, { recursive: true, force: true });
}

try {
  main();
} catch (err) {
  log(`error: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
