#!/usr/bin/env bash
# Builds the addon with ggml's CUDA backend on a machine whose CUDA toolkit has no cuBLAS (as the
# development machines here: nvcc 13 without cuBLAS), taking cuBLAS 11.8's headers and libraries
# from Debian bookworm's non-free archive into tmp/cublas. It proves the CUDA build configures and
# compiles; running it needs a GPU machine with its own toolkit. About 15-30 minutes on 2 cores.
#   bash scripts/cuda-compile-check.sh [ARCH]      (ARCH: CMAKE_CUDA_ARCHITECTURES, default 90-real)
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${1:-90-real}
root=$PWD/tmp/cublas
lists=$root/lists
mkdir -p "$root/debs" "$lists/partial" "$root/sources"
cat > "$root/sources/nonfree.sources" <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
apt=(-oDir::Etc::SourceList=/dev/null "-oDir::Etc::SourceParts=$root/sources" "-oDir::State::Lists=$lists")
apt-get "${apt[@]}" update -qq
(cd "$root/debs" && apt-get "${apt[@]}" download libcublas11 libcublaslt11 nvidia-cuda-dev)
mkdir -p "$root/x"
dpkg -x "$root"/debs/libcublas11_*.deb "$root/x"
dpkg -x "$root"/debs/libcublaslt11_*.deb "$root/x"
dpkg-deb --fsys-tarfile "$root"/debs/nvidia-cuda-dev_*.deb | tar -x -C "$root/x" \
  ./usr/include/cublas.h ./usr/include/cublasLt.h ./usr/include/cublas_api.h ./usr/include/cublas_v2.h \
  ./usr/include/cublasXt.h ./usr/lib/x86_64-linux-gnu/stubs/libcuda.so
lib=$root/x/usr/lib/x86_64-linux-gnu
inc=$root/x/usr/include
# the same build as the GPU machine's (scripts/gpu/build-cuda.sh), with the headers from node_modules
headers=$(cd native && node -p "require('path').dirname(require.resolve('node-api-headers/package.json', { paths: [require.resolve('cmake-js')] }))")/include
addon_api=$(cd native && node -p "require('path').dirname(require.resolve('node-addon-api/napi.h'))")
CMAKE_CUDA_ARCHITECTURES=$arch bash scripts/gpu/build-cuda.sh "$headers" "$addon_api" \
  "-DCUDA_cublas_LIBRARY=$lib/libcublas.so.11" "-DCUDA_cublasLt_LIBRARY=$lib/libcublasLt.so.11" \
  "-DCUDA_cuda_driver_LIBRARY=$lib/stubs/libcuda.so" "-DCMAKE_CUDA_FLAGS=-I$inc" "-DCMAKE_CXX_FLAGS=-I$inc"
echo "cuda-compile-check: built native/build-cuda/Release/jepa_native.node"
