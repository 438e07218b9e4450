#!/usr/bin/env bash
# Sets up a fresh machine (Node 20, npm, cmake, g++, python3) to build and test jepa:
# ffmpeg (video input), redis-server (corpus tests), qemu-user (the portable addon's test on an
# emulated AVX2-only CPU), chromium (the web page's test) and xz-utils (the GPU check's packing)
# from Debian, pnpm pinned, dependencies, the pinned ggml, the addon, the packages.
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=10.34.8

missing=()
if ! command -v ffmpeg >/dev/null 2>&1 || ! command -v ffprobe >/dev/null 2>&1; then
  missing+=(ffmpeg)
fi
if ! command -v redis-server >/dev/null 2>&1; then
  missing+=(redis-server)
fi
if ! command -v qemu-x86_64 >/dev/null 2>&1; then
  missing+=(qemu-user)
fi
if ! command -v chromium >/dev/null 2>&1; then
  missing+=(chromium)
fi
if ! command -v xz >/dev/null 2>&1; then
  missing+=(xz-utils)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${missing[*]} from Debian" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup: ${missing[*]} missing; video input needs ffmpeg, the corpus tests redis-server, the portable-CPU test qemu-user, the web page test chromium, the GPU check's packing xz" \
      "(sudo apt-get install ${missing[*]})" >&2
  fi
fi

if [ "$(pnpm --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
  echo "setup: installing pnpm $PNPM_VERSION" >&2
  npm install -g --silent "pnpm@$PNPM_VERSION"
fi

pnpm install --frozen-lockfile
pnpm build
