#!/bin/bash
# `jepa embed` of a folder inside a cgroup with a CFS quota (what `docker run --cpus Q` sets), the
# default thread count against a given one, taking turns; prints seconds and throttled periods per run.
#   scripts/bench/cpu-quota-embed.sh MODEL.gguf PHOTO_DIR [QUOTAS (CPUs, default "1 0.5")] [ROUNDS (3)] [THREADS (the count to compare, default all affinity CPUs)]
# Needs root and a cgroup v1 cpu controller at /sys/fs/cgroup/cpu (this project's machines).
set -euo pipefail
model=$1 dir=$2 quotas=${3:-"1 0.5"} rounds=${4:-3} threads=${5:-$(nproc)}
cg=/sys/fs/cgroup/cpu/jepa-quota-bench-$$
out=$(mktemp -d)
mkdir "$cg"
trap 'rmdir "$cg"; rm -rf "$out"' EXIT
echo 100000 > "$cg/cpu.cfs_period_us"
throttled() { awk '/^nr_throttled/ {print $2}' "$cg/cpu.stat"; }
for q in $quotas; do
  awk -v q="$q" 'BEGIN { printf "%d\n", q * 100000 }' > "$cg/cpu.cfs_quota_us"
  for round in $(seq "$rounds"); do
    for mode in "--threads $threads" default; do
      flag=$([ "$mode" = default ] || echo "$mode")
      before=$(throttled) t0=$(date +%s.%N)
      # shellcheck disable=SC2086
      sh -c "echo \$\$ > $cg/cgroup.procs && exec node apps/cli/dist/main.js embed -m $model $dir -o $out/e.npy $flag" >/dev/null 2>"$out/err" || { cat "$out/err" >&2; exit 1; }
      t1=$(date +%s.%N)
      echo "quota ${q} CPUs, round $round, ${mode}: $(echo "$t1 - $t0" | bc) s, $(( $(throttled) - before )) throttled periods"
    done
  done
done
