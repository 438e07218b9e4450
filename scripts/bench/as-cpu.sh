#!/usr/bin/env bash
# Runs a command as if on a lesser x86 CPU, at native speed (scripts/bench/as-cpu.c):
#   scripts/bench/as-cpu.sh avx2 pnpm -s jepa-bench peers --types f32,q8_row
# The CPU must have CPUID faulting (cpuid_fault in /proc/cpuinfo). For benchmarks only: the cores'
# ports and caches stay this machine's, so the figures are those of this core with the lesser ISA.
set -euo pipefail
profile=${1:?usage: as-cpu.sh avx2|avx512 COMMAND...}
shift
grep -qw cpuid_fault /proc/cpuinfo || { echo "as-cpu: this CPU has no cpuid_fault" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
lib=${TMPDIR:-/tmp}/jepa-as-cpu.so
[ "$lib" -nt "$here/as-cpu.c" ] || gcc -O2 -shared -fPIC -o "$lib" "$here/as-cpu.c" -ldl
# glibc chose its string functions before the shim ran; make those match too
hw=-AVX512F,-AVX512CD,-AVX512BW,-AVX512DQ,-AVX512VL,-AVX512_VNNI,-AVX_VNNI,-AVX512_BF16,-AVX512_FP16,-AMX_TILE,-AMX_INT8,-AMX_BF16
[ "$profile" = avx512 ] && hw=-AVX512_VNNI,-AVX_VNNI,-AVX512_BF16,-AVX512_FP16,-AMX_TILE,-AMX_INT8,-AMX_BF16
export AS_CPU=$profile GLIBC_TUNABLES=glibc.cpu.hwcaps=$hw${GLIBC_TUNABLES:+:$GLIBC_TUNABLES}
export LD_PRELOAD=$lib${LD_PRELOAD:+:$LD_PRELOAD}
exec "$@"
