#!/usr/bin/env bash
# Builds and checks the container image of jepa (Containerfile) with buildah, no daemon needed.
#
#   scripts/container.sh build    the image, as localhost/jepa:<version> and localhost/jepa:latest
#   scripts/container.sh smoke    the smoke test (apps/jepa/test/container.test.ts): builds, serves, embeds, stops
#   scripts/container.sh bench [MODEL.gguf] [ROUNDS]
#                                 jepa-bench encoder inside the built image and on the host (the same
#                                 portable addon), alternating, ROUNDS (5) of each; default model: the
#                                 forged ViT-B/16 f32 of jepa-bench (tmp/bench-models/vit-b16-f32.gguf)
#   scripts/container.sh size     the image's size: its layers uncompressed, gzip and zstd (buildah push to dir:)
#   scripts/container.sh startup [N]
#                                 ms from `buildah run` of the default command to the first /health 200, N (5) times
#
# The base image is pulled where it is not in local storage; where no registry can be reached,
# `build` makes a stand-in for it instead (scripts/container-base.sh: debootstrap + the official Node
# binary). JEPA_IMAGE names the image; BUILD_JOBS the addon's parallel compile jobs (default: nproc);
# CPU_VARIANTS (e.g. "zen4") compiles only those of ggml's 14 CPU variants (the smoke test's bounded build).
# Where NODE_EXTRA_CA_CERTS is set (a TLS-inspecting proxy), the build's npm and pnpm trust it too,
# as a build secret (in no layer).
# Builds run under `nice -n 10`, two stages at a time (the addon compiles while the runtime stage installs
# ffmpeg); with buildah's --layers cache an unchanged step is not run again. JEPA_BUILD_FLAGS adds
# flags (--no-cache: a cold build).
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "container.sh: $*" >&2; exit 1; }

command -v buildah >/dev/null 2>&1 || die "buildah is not installed (scripts/setup.sh installs it; or apt-get install buildah)"
version=$(node -p 'require("./apps/jepa/package.json").version')
image=${JEPA_IMAGE:-localhost/jepa:$version}

case "${1:-}" in
  build)
    base=$(sed -n 's/^ARG NODE_IMAGE=//p' Containerfile)
    if ! buildah inspect --type image "$base" >/dev/null 2>&1 && ! timeout 300 buildah pull --quiet "$base" >/dev/null; then
      echo "container.sh: cannot pull $base; making a local stand-in for it" >&2
      scripts/container-base.sh
    fi
    revision=$(git rev-parse HEAD 2>/dev/null || true)
    start=$(date +%s)
    nice -n 10 buildah build --isolation chroot --format docker --layers --force-rm --jobs 2 ${JEPA_BUILD_FLAGS:-} \
      --build-arg VERSION="$version" --build-arg REVISION="$revision" \
      ${BUILD_JOBS:+--build-arg BUILD_JOBS="$BUILD_JOBS"} ${CPU_VARIANTS:+--build-arg CPU_VARIANTS="$CPU_VARIANTS"} \
      ${NODE_EXTRA_CA_CERTS:+--secret id=extra_ca,src="$NODE_EXTRA_CA_CERTS"} \
      -f Containerfile -t "$image" -t "${image%:*}:latest" .
    echo "container.sh: built $image in $(($(date +%s) - start)) s" >&2
    ;;
  smoke)
    exec npx vitest run --project jepa apps/jepa/test/container.test.ts
    ;;
  bench)
    model=$(realpath "${2:-tmp/bench-models/vit-b16-f32.gguf}")
    rounds=${3:-5}
    [ -f "$model" ] || die "$model is missing (jepa-bench encoder forges it: node apps/bench/dist/main.js encoder -m vit-b16 -r 1)"
    buildah inspect --type image "$image" >/dev/null 2>&1 || die "$image is not built (scripts/container.sh build)"
    ctr=$(buildah from --pull-never "$image")
    trap 'buildah rm "$ctr" >/dev/null' EXIT
    bench=(jepa-bench encoder -m /bench/model.gguf -t "${THREADS:-2}" -r 5 --json)
    ms() { node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).rows[0].msPerItem.toFixed(1)))'; }
    inside=() host=()
    for ((i = 1; i <= rounds; i++)); do
      inside+=("$(nice -n 10 buildah run --isolation chroot -v "$model:/bench/model.gguf:ro" "$ctr" -- "${bench[@]}" 2>/dev/null | ms)")
      host+=("$(JEPA_ADDON="$PWD/native/build/Release/jepa_native.node" nice -n 10 node apps/bench/dist/main.js encoder \
        -m "$model" -t "${THREADS:-2}" -r 5 --json 2>/dev/null | ms)")
      echo "container.sh: round $i: image ${inside[-1]} ms/image, host ${host[-1]} ms/image" >&2
    done
    med() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
    echo "encoder, $(basename "$model"), ${THREADS:-2} threads, median of $rounds rounds (each the median of 5 runs): image $(med "${inside[@]}") ms/image, host $(med "${host[@]}") ms/image"
    ;;
  startup)
    buildah inspect --type image "$image" >/dev/null 2>&1 || die "$image is not built (scripts/container.sh build)"
    ctr=$(buildah from --pull-never "$image")
    trap 'buildah rm "$ctr" >/dev/null' EXIT
    mapfile -t cmd < <(buildah inspect --type image --format '{{range .Docker.Config.Cmd}}{{println .}}{{end}}' "$image" | sed '/^$/d')
    port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
    command -v curl >/dev/null 2>&1 || die "startup needs curl"
    for ((i = 1; i <= ${2:-5}; i++)); do
      t0=$(date +%s%N)
      buildah run --isolation chroot "$ctr" -- "${cmd[@]}" --host 127.0.0.1 --port "$port" 2>/dev/null &
      run=$!
      until curl --noproxy '*' -m 2 -sf -o /dev/null "http://127.0.0.1:$port/health"; do
        kill -0 $run 2>/dev/null || die "the server exited before /health answered 200"
        sleep 0.05
      done
      echo "container.sh: run $i: first /health 200 after $((($(date +%s%N) - t0) / 1000000)) ms" >&2
      # the server's own process (chroot isolation shares the host's process table), found by its port
      for d in /proc/[0-9]*; do
        # Node itself (argv[0] node; its comm is its thread name), not buildah's chroot-exec
        if tr '\0' ' ' 2>/dev/null <"$d/cmdline" | grep -Eq -- "^(\S*/)?node .*--port $port \$"; then kill -TERM "${d#/proc/}"; fi
      done
      wait $run || die "the server exited $? on SIGTERM"
    done
    ;;
  size)
    buildah inspect --type image "$image" >/dev/null 2>&1 || die "$image is not built (scripts/container.sh build)"
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
    for c in none gzip zstd; do
      # zstd layers exist only in the OCI format (the image itself is Docker format, for its HEALTHCHECK)
      if [ $c = none ]; then flags=(--disable-compression); elif [ $c = zstd ]; then flags=(--format oci --compression-format zstd); else flags=(--compression-format $c); fi
      buildah push --quiet "${flags[@]}" "$image" "dir:$out/$c" >/dev/null
      echo "$image, layers $c: $(du -sb "$out/$c" | awk '{ printf "%.1f MiB", $1 / 1048576 }')"
    done
    ;;
  *)
    die "usage: scripts/container.sh build|smoke|bench|startup|size"
    ;;
esac
