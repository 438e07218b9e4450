// Resolves the built addon: JEPA_ADDON names a .node file explicitly; otherwise the CUDA build
// when it exists, then the CPU build (a CUDA build on a machine without the driver falls back).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

function addonPaths() {
  if (process.env.JEPA_ADDON) return [process.env.JEPA_ADDON];
  const candidates = [join(__dirname, 'build-cuda/Release/jepa_native.node'), join(__dirname, 'build/Release/jepa_native.node')];
  const found = candidates.filter((p) => existsSync(p));
  if (found.length === 0) throw new Error(`the jepa native addon is not built (looked for ${candidates.join(', ')}); run \`pnpm build\``);
  return found;
}

/** The C++ mul_mat driver built beside the addon (jepa-bench prices the binding against it). */
function mulmatDriverPath() {
  const p = join(__dirname, 'build/ggml-mulmat-driver');
  if (!existsSync(p)) throw new Error(`${p} is not built; run \`pnpm build\``);
  return p;
}

module.exports = { addonPaths, mulmatDriverPath };
