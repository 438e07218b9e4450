// Resolves the addon to load: JEPA_ADDON names a .node file explicitly; otherwise the source builds in
// this folder (CUDA, then -march=native, then portable; a CUDA build on a machine without the driver
// falls back), then the prebuilt portable binary of this platform's package (@jepa/addon-linux-x64).
const { existsSync } = require('node:fs');
const { dirname, join } = require('node:path');

const SOURCE_BUILDS = ['build-cuda', 'build-native', 'build'];

/** The platform package that carries a prebuilt binary for this machine, if one is published. */
function prebuiltPackage() {
  return `@jepa/addon-${process.platform}-${process.arch}`;
}

/** The prebuilt binary, when the platform package is installed and holds one. */
function prebuiltPath() {
  try {
    const dir = dirname(require.resolve(`${prebuiltPackage()}/package.json`));
    const p = join(dir, 'lib/jepa_native.node');
    return existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

function addonPaths() {
  if (process.env.JEPA_ADDON) return [process.env.JEPA_ADDON];
  const built = SOURCE_BUILDS.map((d) => join(__dirname, d, 'Release/jepa_native.node')).filter((p) => existsSync(p));
  const prebuilt = prebuiltPath();
  const found = prebuilt ? [...built, prebuilt] : built;
  if (found.length === 0) {
    throw new Error(
      `the jepa native addon is not built and no prebuilt binary is installed (${prebuiltPackage()}); ` +
        'in the repository run `pnpm build`, in a project run `npm rebuild @jepa/addon` to build it from source',
    );
  }
  return found;
}

/** The C++ mul_mat driver built beside the addon (jepa-bench prices the binding against it). */
function mulmatDriverPath() {
  const p = join(__dirname, 'build/ggml-mulmat-driver');
  if (!existsSync(p)) throw new Error(`${p} is not built; run \`pnpm build\``);
  return p;
}

module.exports = { addonPaths, mulmatDriverPath, prebuiltPackage, prebuiltPath };
