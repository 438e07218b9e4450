#!/usr/bin/env node
// Packs what the GPU machine needs beyond the working tree into tmp/gpu-carry/ (the one ignored path
// the device tool carries): this Node as node.xz, the pinned ggml without the backends it does not
// build, the N-API and node-addon-api headers (headers.tar.xz), and apps/bench/gpu/device-main.ts as one bundle. Then
// it sums what travels (the tracked and untracked-unignored files, plus the carry) against the
// tool's 64 MiB, writes tmp/gpu-carry/manifest.json, and fails when it does not fit.
//   node scripts/gpu/pack.mjs          (the packages built first: pnpm build)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const carry = join(root, 'tmp/gpu-carry');
const LIMIT = 64 * 2 ** 20;
// ggml backends this engine never builds: left out of the archive (ggml adds a backend's folder only when it is on)
const OTHER_BACKENDS = [
  'blas',
  'cann',
  'et',
  'hexagon',
  'hip',
  'metal',
  'musa',
  'opencl',
  'openvino',
  'rpc',
  'sycl',
  'virtgpu',
  'vulkan',
  'webgpu',
  'zdnn',
  'zendnn',
];

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 2 ** 28, ...options });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status}`);
  return r.stdout?.toString() ?? '';
}

const mib = (n) => n / 2 ** 20;

// Node's release binary carries its symbol table and debug info (18 MB); --strip-all keeps the dynamic symbols
// (the N-API exports an addon binds to) and saves 2.5 MiB of xz, which the 64 MiB need. The x86 branch filter
// and preset 9 save 1.3 MiB more (27.4 -> 26.1 MB, a minute on one core).
const XZ = 'xz --x86 --lzma2=preset=9 -T0';

/** node.xz is the slow part (about a minute): kept while this Node binary and the xz settings are unchanged. */
function packNode() {
  const out = join(carry, 'node.xz');
  const stamp = join(carry, 'node.xz.sha256');
  const sha = createHash('sha256').update(readFileSync(process.execPath)).update(XZ).digest('hex');
  if (existsSync(out) && existsSync(stamp) && readFileSync(stamp, 'utf8') === sha) return;
  const stripped = join(carry, 'node.stripped');
  run('sh', [
    '-c',
    `strip --strip-all -o "${stripped}" "${process.execPath}" && ${XZ} -c "${stripped}" > "${out}.partial" && mv "${out}.partial" "${out}"; s=$?; rm -f "${stripped}"; exit $s`,
  ]);
  writeFileSync(stamp, sha);
}

function packGgml() {
  const pin = join(root, 'ggml/.jepa-pin.json');
  if (!existsSync(pin)) throw new Error('the pinned ggml is not in ggml/: run pnpm fetch-ggml');
  const excludes = OTHER_BACKENDS.map((b) => `--exclude=ggml/src/ggml-${b}`);
  run('tar', ['-cJf', join(carry, 'ggml.tar.xz'), ...excludes, '--exclude=ggml/examples', '--exclude=ggml/tests', '--exclude=ggml/docs', 'ggml']);
}

/** The two header folders native/CMakeLists.txt needs, from node_modules here, as headers.tar.xz (0.44 -> 0.1 MB). */
function packHeaders() {
  const require = createRequire(join(root, 'native/package.json'));
  const addonApi = dirname(require.resolve('node-addon-api/napi.h'));
  const nodeApi = join(dirname(require.resolve('node-api-headers/package.json', { paths: [require.resolve('cmake-js')] })), 'include');
  const dir = join(carry, 'headers');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'node-addon-api'), { recursive: true });
  run('sh', ['-c', `cp "${nodeApi}"/*.h "${dir}/" && cp "${addonApi}"/*.h "${dir}/node-addon-api/"`]);
  const napiDir = join(dir, 'node-api');
  mkdirSync(napiDir);
  run('sh', ['-c', `mv "${dir}"/*.h "${napiDir}/"`]);
  run('tar', ['-cJf', join(carry, 'headers.tar.xz'), '-C', carry, 'headers']);
  rmSync(dir, { recursive: true, force: true });
}

/**
 * device-main.ts and everything it imports, in one ESM file (only the addon stays outside). Each
 * module keeps its own import.meta.url, the place of its source in the repository (fixtures are
 * found from there), resolved against where the bundle runs: tmp/gpu-run/, two folders down.
 */
async function bundle() {
  const require = createRequire(join(root, 'package.json'));
  const esbuild = require('esbuild');
  const ownLocation = {
    name: 'own-location',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        if (!source.includes('import.meta.')) return undefined;
        const at = JSON.stringify(relative(root, args.path));
        const contents = source
          .replaceAll('import.meta.dirname', `__jepaDirname(${at})`)
          .replaceAll('import.meta.filename', `__jepaFilename(${at})`)
          .replaceAll('import.meta.url', `__jepaUrl(${at})`);
        return { contents, loader: args.path.endsWith('ts') ? 'ts' : 'js' };
      });
    },
  };
  await esbuild.build({
    entryPoints: [join(root, 'apps/bench/gpu/device-main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    outfile: join(carry, 'device-main.mjs'),
    external: ['@jepa/addon'],
    // 0.6 MiB less of the 64 MiB (1.50 -> 0.87 MB); the names stay, as errors and reports print them
    minify: true,
    keepNames: true,
    logLevel: 'warning',
    plugins: [ownLocation],
    banner: {
      // the bundled CommonJS parts call require(); an ES module has none of its own
      js: [
        "import { createRequire as __jepaRequire } from 'node:module';",
        "import { dirname as __jepaDir, join as __jepaJoin } from 'node:path';",
        "import { fileURLToPath as __jepaPath, pathToFileURL as __jepaFileUrl } from 'node:url';",
        'const require = __jepaRequire(import.meta.url);',
        "const __jepaRoot = __jepaPath(new URL('../../', import.meta.url));",
        'const __jepaFilename = (p) => __jepaJoin(__jepaRoot, p);',
        'const __jepaDirname = (p) => __jepaDir(__jepaFilename(p));',
        'const __jepaUrl = (p) => __jepaFileUrl(__jepaFilename(p)).href;',
      ].join('\n'),
    },
  });
}

/** Sizes of what the device tool sends: the files git would see, and the carry. */
function travelling() {
  const files = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'])
    .split('\0')
    .filter(Boolean)
    .filter((f) => existsSync(join(root, f)) && statSync(join(root, f)).isFile());
  const tree = files.reduce((a, f) => a + statSync(join(root, f)).size, 0);
  const carried = run('find', [carry, '-type', 'f', '-printf', '%s\\n'])
    .split('\n')
    .filter(Boolean)
    .reduce((a, n) => a + Number(n), 0);
  return { files: files.length, tree, carried };
}

mkdirSync(carry, { recursive: true });
const t0 = Date.now();
packNode();
packGgml();
packHeaders();
await bundle();
const size = travelling();
const total = size.tree + size.carried;
const parts = Object.fromEntries(['node.xz', 'ggml.tar.xz', 'headers.tar.xz', 'device-main.mjs'].map((f) => [f, mib(statSync(join(carry, f)).size)]));
const manifest = {
  node: process.version,
  revision: run('git', ['rev-parse', '--short', 'HEAD']).trim(),
  treeFiles: size.files,
  treeMiB: mib(size.tree),
  carryMiB: mib(size.carried),
  totalMiB: mib(total),
  limitMiB: mib(LIMIT),
  partsMiB: parts,
  packSeconds: (Date.now() - t0) / 1000,
};
writeFileSync(join(carry, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
process.stderr.write(
  `gpu pack: ${manifest.treeFiles} files ${manifest.treeMiB.toFixed(1)} MiB + carry ${manifest.carryMiB.toFixed(1)} MiB = ${manifest.totalMiB.toFixed(1)} MiB of ${manifest.limitMiB} MiB\n`,
);
if (total > LIMIT) {
  process.stderr.write('gpu pack: this does not fit the device tool; nothing should travel\n');
  process.exit(1);
}
