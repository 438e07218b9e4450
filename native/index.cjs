// Resolves the built addon: JEPA_ADDON names a .node file explicitly; otherwise the CUDA build
// when it exists, else the CPU build.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

function addonPath() {
  if (process.env.JEPA_ADDON) return process.env.JEPA_ADDON;
  const candidates = [join(__dirname, 'build-cuda/Release/jepa_native.node'), join(__dirname, 'build/Release/jepa_native.node')];
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`the jepa native addon is not built (looked for ${candidates.join(', ')}); run \`pnpm build\``);
  return found;
}

module.exports = { addonPath };
