#!/usr/bin/env bash
# The GPU check, one command: builds the CUDA addon, runs the GPU checks, benchmarks the encoder
# against PyTorch on the same card, and writes report.json and report.md. docs/gpu.md has the whole
# procedure and what the report holds.
#
#   on the GPU machine (the device tool, carrying tmp/gpu-carry from scripts/gpu/pack.mjs):
#     bash scripts/gpu-check.sh                  writes into $OUT
#   here, without a GPU:
#     bash scripts/gpu-check.sh --dry-run [DIR]  packs, copies what would travel into DIR/tree
#                                                (default tmp/gpu-dry), and runs it there on the CPU
#
# The dry run is the same script on the same carry, with the CPU standing in for the card: the
# carried Node unpacks and runs the bundle from a folder without node_modules, the carried ggml
# and headers configure the addon's build, the checks run on the CPU with the GPU's graphs
# (JEPA_CPU_NODES=0), the bench on a small preset, and the report is written. It skips only the
# CUDA compile, PyTorch and transformers.
#
# GPU_CHECK_SECONDS (default 570) is the whole run's budget: each step gets what is left of it, and
# every step's JSON is written as it goes, so a run cut short still reports what it measured.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if [ "${1:-}" = --dry-run ]; then
  dry=$(realpath -m "${2:-tmp/gpu-dry}")
  node scripts/gpu/pack.mjs || exit 1
  rm -rf "$dry" && mkdir -p "$dry/tree" "$dry/out"
  # what the device tool sends: the files git sees and the carry, nothing else (no node_modules)
  git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c 'test -f "{}" && echo "{}"' |
    tar -cf - -T - tmp/gpu-carry | tar -xf - -C "$dry/tree"
  addon=$root/native/build/Release/jepa_native.node
  [ -f "$addon" ] || { echo "gpu-check --dry-run: build the addon first (pnpm build)" >&2; exit 1; }
  OUT=$dry/out GPU_CHECK_STAND_IN=$addon bash "$dry/tree/scripts/gpu-check.sh"
  exit $?
fi

: "${OUT:?gpu-check: OUT names the folder for the report (the device tool sets it)}"
mkdir -p "$OUT"
start=$(date +%s)
budget=${GPU_CHECK_SECONDS:-570}
stand_in=${GPU_CHECK_STAND_IN:-}
export root carry=$root/tmp/gpu-carry work=$root/tmp/gpu-run
steps=$OUT/steps.tsv
printf 'step\tstatus\tseconds\n' > "$steps"
left() { echo $(( budget - ($(date +%s) - start) )); }
log() { echo "gpu-check [$(( $(date +%s) - start )) s]: $*" >&2; }

# step NAME SECONDS CMD...: runs CMD under a time limit, logging it into $OUT/NAME.log and steps.tsv
step() {
  local name=$1 limit=$2 t0 rc
  shift 2
  if [ "$limit" -le 5 ]; then
    printf '%s\tskipped: no time left\t0\n' "$name" >> "$steps"
    log "$name skipped: no time left"
    return 124
  fi
  log "$name (at most $limit s)"
  # timeout runs programs, so a function runs in a bash of its own (the variables it reads are exported)
  if declare -F "$1" > /dev/null; then set -- bash -c "$(declare -f "$1" pin); \"\$@\"" bash "$@"; fi
  t0=$(date +%s)
  timeout --kill-after=10 "$limit" "$@" > "$OUT/$name.log" 2>&1
  rc=$?
  printf '%s\t%s\t%s\n' "$name" "$([ $rc = 0 ] && echo ok || echo "exit $rc")" "$(( $(date +%s) - t0 ))" >> "$steps"
  log "$name: exit $rc after $(( $(date +%s) - t0 )) s"
  return $rc
}
# pin CORE CMD...: CMD on one core where taskset exists
pin() {
  local core=$1
  shift
  if command -v taskset > /dev/null; then taskset -c "$core" "$@"; else "$@"; fi
}
skip() {
  printf '%s\tskipped: %s\t0\n' "$1" "$2" >> "$steps"
  log "$1 skipped: $2"
}

[ -f "$carry/manifest.json" ] || { echo "gpu-check: no tmp/gpu-carry (run node scripts/gpu/pack.mjs here and carry it)" >&2; exit 2; }
cp "$carry/manifest.json" "$OUT/carry.json"

# 1. the carried Node, ggml and bundle
unpack() {
  rm -rf "$work" && mkdir -p "$work/bin" || return 1
  xz -dc "$carry/node.xz" > "$work/bin/node" && chmod +x "$work/bin/node" || return 1
  if [ ! -f ggml/.jepa-pin.json ]; then tar -xJf "$carry/ggml.tar.xz" -C "$root" || return 1; fi
  tar -xJf "$carry/headers.tar.xz" -C "$work" || return 1
  # where @jepa/native's require('@jepa/addon') looks (the bundle keeps each module's own place)
  mkdir -p "$root/packages/native/node_modules/@jepa" && ln -sfn "$root/native" "$root/packages/native/node_modules/@jepa/addon" &&
    cp "$carry/device-main.mjs" "$work/" || return 1
  "$work/bin/node" --version
}
step unpack 60 unpack || { echo "gpu-check: the carry did not unpack" >&2; exit 1; }
node=$work/bin/node
main=$work/device-main.mjs
headers=("$work/headers/node-api" "$work/headers/node-addon-api")
# the forged real-size models stay outside $work, so a rerun on a warm machine reuses them (and the build)
models=$root/tmp/gpu-models

if [ -n "$stand_in" ]; then
  device=cpu
  # the CPU stands in with the GPU's graphs: ggml's generic ops, none of the engine's CPU-only nodes
  export JEPA_ADDON=$stand_in JEPA_CPU_NODES=0
  # the carried ggml and headers configure the build; compiling without CUDA proves nothing new
  JEPA_CONFIGURE_ONLY=1 JEPA_BUILD_DIR=$work/build-check step configure 120 \
    bash scripts/gpu/build-cuda.sh "${headers[@]}" -DJEPA_CUDA=OFF
  skip build "dry run (no CUDA compile here: scripts/cuda-compile-check.sh does that)"
  skip torch "dry run (no PyTorch here)"
  skip hf-fixtures "dry run (no transformers here)"
  step forge 120 pin 0 "$node" "$main" forge --out "$OUT/forge.json" --dir "$models" --models vit-ti14
  bench_args=(--models vit-ti14 --batches 1,2 --repeat 2 --warmup 1 --threads 2)
else
  device=cuda:0
  # the H200's 139 GiB: a batch of 32 clips in one graph, not split at the CPU's default 8 GiB
  export JEPA_MAX_GRAPH_MIB=65536
  [ -d /usr/local/cuda/bin ] && export PATH=$PATH:/usr/local/cuda/bin
  { nvidia-smi; nvcc --version; } > "$OUT/gpu.txt" 2>&1
  cores=$(nproc)
  # transformers' fixtures, then PyTorch's bench, run while the addon compiles, on a core of their
  # own; the engine's bench waits for PyTorch's, so the two never share the card
  (
    step hf-fixtures 60 pin $((cores - 1)) python3 scripts/gpu/hf_fixtures.py --out "$OUT/hf-fixtures"
    step torch 300 pin $((cores - 1)) python3 scripts/gpu/torch_bench.py --out "$OUT/torch.json" --budget-s 200
  ) &
  torch_pid=$!
  # the bench's real-size models are forged (plain JS, one core) while the addon compiles too
  step forge 300 pin $((cores - 2)) "$node" "$main" forge --out "$OUT/forge.json" --dir "$models" &
  forge_pid=$!
  JEPA_BUILD_JOBS=$((cores - 2)) step build 330 bash scripts/gpu/build-cuda.sh "${headers[@]}"
  build_rc=$?
  bench_args=()
fi

if [ -n "$stand_in" ] || [ "${build_rc:-1}" = 0 ]; then
  step machine 60 "$node" "$main" machine --out "$OUT/machine.json"
  step checks $(( $(left) > 150 ? 150 : $(left) - 20 )) "$node" "$main" checks --device "$device" --out "$OUT/checks.json" --tmp "$work/fixtures"
  if [ -n "${forge_pid:-}" ]; then wait "$forge_pid"; fi
  if [ -n "${torch_pid:-}" ]; then
    log "waiting for PyTorch's bench to finish"
    wait "$torch_pid"
    torch_pid=
  fi
  # the bench gets what is left but the report's share, and stops starting models 40 s before that
  limit=$(( $(left) - 20 ))
  step bench "$limit" "$node" "$main" bench --device "$device" --out "$OUT/bench.json" --dir "$models" --budget-s $(( limit > 80 ? limit - 40 : 40 )) "${bench_args[@]}"
else
  skip machine "the CUDA build failed (build.log)"
  skip checks "the CUDA build failed (build.log)"
  skip bench "the CUDA build failed (build.log)"
fi
if [ -n "${torch_pid:-}" ]; then wait "$torch_pid"; fi
"$node" scripts/gpu/report.mjs "$OUT"
log "report: $OUT/report.md"
