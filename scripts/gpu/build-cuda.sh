#!/usr/bin/env bash
# Builds the CUDA addon, native/build-cuda/Release/jepa_native.node (or JEPA_BUILD_DIR), with cmake
# and ninja directly: no cmake-js and no node_modules, which the GPU machine does not have. The N-API headers and
# node-addon-api come as folders (scripts/gpu/pack.mjs carries both).
#   scripts/gpu/build-cuda.sh NODE_API_INCLUDE NODE_ADDON_API [-DNAME=VALUE ...]
# CMAKE_CUDA_ARCHITECTURES (default 90-real: the H200's SASS only, no PTX) and JEPA_BUILD_JOBS
# (default: every core) apply; JEPA_CONFIGURE_ONLY=1 stops after cmake's configure step. ggml is the
# pinned tree in ggml/ (node native/fetch-ggml.mjs). Later -D definitions override earlier ones.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ $# -lt 2 ]; then
  echo "usage: scripts/gpu/build-cuda.sh NODE_API_INCLUDE NODE_ADDON_API [-DNAME=VALUE ...]" >&2
  exit 2
fi
node_api=$(realpath "$1")
addon_api=$(realpath "$2")
shift 2
[ -f "$node_api/node_api.h" ] || { echo "build-cuda: no node_api.h in $node_api" >&2; exit 2; }
[ -f "$addon_api/napi.h" ] || { echo "build-cuda: no napi.h in $addon_api" >&2; exit 2; }
[ -f ggml/.jepa-pin.json ] || { echo "build-cuda: the pinned ggml is not in ggml/" >&2; exit 2; }
out=${JEPA_BUILD_DIR:-$PWD/native/build-cuda}
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S native -B "$out" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DJEPA_CUDA=ON -DJEPA_NATIVE=ON "-DJEPA_GGML_DIR=$PWD/ggml" \
  "-DCMAKE_CUDA_ARCHITECTURES=${CMAKE_CUDA_ARCHITECTURES:-90-real}" \
  "-DCMAKE_JS_INC=$node_api" "-DNODE_ADDON_API_DIR=$addon_api" \
  "-DCMAKE_LIBRARY_OUTPUT_DIRECTORY=$out/Release" "$@"
if [ "${JEPA_CONFIGURE_ONLY:-0}" = 1 ]; then
  echo "build-cuda: configured $out"
  exit 0
fi
cmake --build "$out" --target jepa_native --parallel "${JEPA_BUILD_JOBS:-$(nproc)}"
test -f "$out/Release/jepa_native.node"
echo "build-cuda: $out/Release/jepa_native.node"
