#!/usr/bin/env bash
# The release files, in dist/: everything a release uploads.
#   bash scripts/dist.sh          every package
#   bash scripts/dist.sh c        only the C tarball (also: python, node, java)
# Each part is built from a clean build directory of its own under
# build/dist-*, so nothing of a development build leaks into a package.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DIST="${MINIGRAF_DIST_DIR:-$ROOT/dist}"
VERSION="$(sed -n 's/^#define MINIGRAF_VERSION "\(.*\)"/\1/p' "$ROOT/capi/include/minigraf.h")"
ARCH="$(uname -m)"

# The C tarball: shared and static library, minigraf.h, the shell,
# minigraf.pc and the CMake package config, under one relocatable prefix.
dist_c() {
  local build="$BUILD/dist-c" name="minigraf-$VERSION-linux-$ARCH"
  local stage="$BUILD/dist-c-stage/$name"
  log "C tarball: $name.tar.gz"
  rm -rf "$build" "$BUILD/dist-c-stage"
  cmake -S "$ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMINIGRAF_TESTS=OFF \
    -DMINIGRAF_BENCH=OFF -DMINIGRAF_PYTHON=OFF -DMINIGRAF_NODE=OFF -DMINIGRAF_JAVA=OFF \
    -DMINIGRAF_SHELL_LIBEDIT=OFF >/dev/null
  cmake --build "$build" --parallel "$JOBS" >/dev/null
  cmake --install "$build" --prefix "$stage" >/dev/null
  cp "$ROOT/LICENSE" "$ROOT/README.md" "$stage/"
  mkdir -p "$DIST"
  tar -C "$BUILD/dist-c-stage" -czf "$DIST/$name.tar.gz" "$name"
  echo "$DIST/$name.tar.gz"
}

# The npm package: the JavaScript layer, node-gyp-build as its loader, the
# self-contained addon (engine linked in) prebuilt with Zig for linux-x64 and
# linux-arm64 against glibc 2.17 and musl, and the sources binding.gyp
# compiles when no prebuild matches (deps/minigraf: engine and C API).
NODE_PREBUILDS="x86_64-linux-gnu.2.17:linux-x64/minigraf.napi.glibc.node
  aarch64-linux-gnu.2.17:linux-arm64/minigraf.napi.glibc.node
  x86_64-linux-musl:linux-x64/minigraf.napi.musl.node
  aarch64-linux-musl:linux-arm64/minigraf.napi.musl.node"

# node_prebuild ZIG_TARGET FILE: the addon for one target, copied to FILE.
node_prebuild() {
  local target="$1" file="$2" dir="$BUILD/dist-node/$1"
  rm -rf "$dir"
  zig_wrappers "$dir/zig" "$target"
  cmake -S "$ROOT" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR="${target%%-*}" \
    -DCMAKE_C_COMPILER="$dir/zig/cc" -DCMAKE_AR="$dir/zig/ar" -DCMAKE_RANLIB="$dir/zig/ranlib" \
    -DMINIGRAF_STATIC_EXECUTABLES=ON -DMINIGRAF_SHELL_LIBEDIT=OFF -DMINIGRAF_TESTS=OFF \
    -DMINIGRAF_BENCH=OFF -DMINIGRAF_PYTHON=OFF -DMINIGRAF_JAVA=OFF \
    -DMINIGRAF_NODE=ON -DMINIGRAF_NODE_PREBUILD=ON -DCMAKE_MODULE_LINKER_FLAGS=-s >/dev/null
  cmake --build "$dir/build" --parallel "$JOBS" --target minigraf_node >/dev/null
  mkdir -p "$(dirname "$file")"
  cp "$dir/build/node/build/Release/minigraf.node" "$file"
}

dist_node() {
  local node="$ROOT/bindings/node" stage="$BUILD/dist-node/package" entry
  log "npm package: minigraf-$VERSION.tgz"
  install_python_tools >/dev/null
  [ -d "$node/node_modules/node-api-headers" ] && [ -d "$node/node_modules/node-gyp-build" ] ||
    install_node_tools >/dev/null
  rm -rf "$stage" && mkdir -p "$stage/deps/minigraf/capi"
  cp "$node"/{package.json,index.js,index.d.ts,README.md,binding.gyp,gyp-sources.js,addon.map} \
    "$ROOT/LICENSE" "$stage/"
  cp -r "$node/src" "$stage/"
  cp -r "$ROOT/engine" "$stage/deps/minigraf/"
  cp -r "$ROOT/capi/include" "$ROOT/capi/src" "$stage/deps/minigraf/capi/"
  for entry in $NODE_PREBUILDS; do
    node_prebuild "${entry%%:*}" "$stage/prebuilds/${entry#*:}"
  done
  mkdir -p "$DIST"
  (cd "$stage" && npm pack --silent --pack-destination "$DIST" >/dev/null)
  echo "$DIST/minigraf-$VERSION.tgz"
}

main() {
  local parts=("$@")
  [ ${#parts[@]} -gt 0 ] || parts=(c node)
  for part in "${parts[@]}"; do
    case "$part" in
      c) dist_c ;;
      node) dist_node ;;
      *) echo "unknown part: $part (c, node)" >&2; exit 2 ;;
    esac
  done
}

main "$@"
