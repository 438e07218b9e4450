#!/usr/bin/env node
// Packs every publishable workspace package (each package.json under the pnpm-workspace.yaml globs
// without "private": true) into tmp/pack/ with `pnpm pack`, which writes the real version where the
// manifest says `workspace:*`. Nothing is built here: run `pnpm build` first. Prints each tarball with
// its size and writes tmp/pack/manifest.json ([{ name, version, dir, tarball, bytes }]) for the
// install test (apps/jepa/test/install.test.ts).
//
//   node scripts/pack.mjs            (or: pnpm pack:all)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const dest = join(root, 'tmp/pack');

/** The `packages:` globs of pnpm-workspace.yaml (a list of `- glob` lines; `!` exclusions honoured). */
function workspaceGlobs() {
  const text = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const globs = [];
  let inPackages = false;
  for (const line of text.split('\n')) {
    if (/^\S/.test(line)) inPackages = /^packages:\s*$/.test(line);
    else if (inPackages) {
      const m = line.match(/^\s+-\s+['"]?([^'"#]+?)['"]?\s*(#.*)?$/);
      if (m) globs.push(m[1]);
    }
  }
  if (globs.length === 0) throw new Error('pnpm-workspace.yaml lists no packages');
  return globs;
}

/** Folders matching one glob: literal segments, `*` (one level) and a trailing `**` (any depth). */
function expand(glob) {
  let dirs = [root];
  const parts = glob.replace(/\/+$/, '').split('/');
  for (const part of parts) {
    const next = [];
    for (const d of dirs) {
      if (part === '**') {
        const walk = (x) => {
          next.push(x);
          for (const e of readdirSync(x, { withFileTypes: true }))
            if (e.isDirectory() && e.name !== 'node_modules' && !e.name.startsWith('.')) walk(join(x, e.name));
        };
        walk(d);
      } else if (part.includes('*')) {
        const re = new RegExp(`^${part.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
        if (!existsSync(d)) continue;
        for (const e of readdirSync(d, { withFileTypes: true }))
          if (e.isDirectory() && e.name !== 'node_modules' && re.test(e.name)) next.push(join(d, e.name));
      } else next.push(join(d, part));
    }
    dirs = next;
  }
  return dirs;
}

/** Every publishable package folder of the workspace, sorted by path. */
export function publishableDirs() {
  const include = new Set();
  const exclude = new Set();
  for (const glob of workspaceGlobs()) {
    const target = glob.startsWith('!') ? exclude : include;
    for (const d of expand(glob.replace(/^!/, ''))) target.add(d);
  }
  return [...include]
    .filter((d) => !exclude.has(d) && existsSync(join(d, 'package.json')))
    .filter((d) => JSON.parse(readFileSync(join(d, 'package.json'), 'utf8')).private !== true)
    .sort();
}

function kib(bytes) {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}

function main() {
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  const packed = [];
  for (const dir of publishableDirs()) {
    let out;
    try {
      out = execFileSync('pnpm', ['pack', '--json', '--pack-destination', dest], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      });
    } catch (err) {
      process.stderr.write(`pack: pnpm pack in ${relative(root, dir)} failed (exit ${err.status})\n${err.stdout ?? ''}`);
      process.exit(1);
    }
    // pnpm prints its JSON after any lifecycle output: take the last top-level object
    const info = JSON.parse(out.slice(out.lastIndexOf('\n{') + 1));
    const tarball = resolve(dest, info.filename.replace(/^.*\//, ''));
    if (!existsSync(tarball)) throw new Error(`pnpm pack in ${relative(root, dir)} wrote no ${tarball}`);
    const bytes = statSync(tarball).size;
    packed.push({
      name: info.name,
      version: info.version,
      dir: relative(root, dir),
      tarball: relative(root, tarball),
      bytes,
      files: info.files.length,
    });
  }
  writeFileSync(join(dest, 'manifest.json'), `${JSON.stringify(packed, null, 2)}\n`);
  const width = Math.max(...packed.map((p) => p.tarball.length));
  for (const p of packed)
    process.stdout.write(
      `${p.tarball.padEnd(width)}  ${kib(p.bytes).padStart(10)}  ${String(p.files).padStart(4)} files  ${p.name}@${p.version} (${p.dir})\n`,
    );
  const total = packed.reduce((s, p) => s + p.bytes, 0);
  process.stdout.write(`${packed.length} packages, ${kib(total)} in ${relative(root, dest)}/\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
