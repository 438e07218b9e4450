#!/usr/bin/env bash
# Time to a first embedding for a model already in the Hugging Face cache: `jepa embed -m hf:...` cold
# (a fresh jepa cache: the conversion included) and warm (the converted GGUF found), beside the same
# embed from a local GGUF. The HF folder is laid into a private cache as Python's huggingface_hub
# lays it (blobs, snapshots/<commit> links, refs/main); HF_HUB_OFFLINE=1, so no network is touched.
#   scripts/bench/hf-first-embedding.sh HF_FOLDER IMAGE [RUNS]
#   e.g. scripts/bench/hf-first-embedding.sh tmp/peers/dinov3-b16-hf fixtures/preprocess/sample.jpg 5
# (tmp/peers/dinov3-b16-hf: `jepa-bench peers --net dinov3-b16` writes it: real-size random weights)
set -euo pipefail
folder=$1
image=$2
runs=${3:-5}
cli="node $(dirname "$0")/../../apps/cli/dist/main.js"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$work/hf/hub/models--bench--model
commit=0123456789abcdef0123456789abcdef01234567
mkdir -p "$repo/blobs" "$repo/refs" "$repo/snapshots/$commit"
printf %s "$commit" > "$repo/refs/main"
for f in "$folder"/*; do
  sha=$(sha256sum "$f" | cut -d' ' -f1)
  ln "$f" "$repo/blobs/$sha" 2>/dev/null || cp "$f" "$repo/blobs/$sha"
  ln -s "../../blobs/$sha" "$repo/snapshots/$commit/$(basename "$f")"
done
export HF_HOME=$work/hf HF_HUB_OFFLINE=1
seconds() { local s e; s=$(date +%s.%N); "$@" > /dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
cold=() warm=() local=()
for _ in $(seq "$runs"); do
  rm -rf "$work/jepa"
  cold+=("$(JEPA_CACHE=$work/jepa seconds $cli embed -m hf:bench/model "$image" -t 2 -o "$work/cold.npy")")
  warm+=("$(JEPA_CACHE=$work/jepa seconds $cli embed -m hf:bench/model "$image" -t 2 -o "$work/warm.npy")")
done
gguf=$(ls "$work"/jepa/hub/models--bench--model/*/*/*.gguf)
for _ in $(seq "$runs"); do local+=("$(seconds $cli embed -m "$gguf" "$image" -t 2 -o "$work/local.npy")"); done
cmp -s "$work/cold.npy" "$work/warm.npy" && cmp -s "$work/warm.npy" "$work/local.npy" || { echo "the three embeddings differ" >&2; exit 1; }
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; $(du -m "$gguf" | cut -f1) MiB GGUF; $runs runs each, median seconds:"
echo "cold (conversion included): $(printf '%s\n' "${cold[@]}" | median)  [${cold[*]}]"
echo "warm (converted GGUF found): $(printf '%s\n' "${warm[@]}" | median)  [${warm[*]}]"
echo "the same GGUF by path: $(printf '%s\n' "${local[@]}" | median)  [${local[*]}]"
