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

main() {
  local parts=("$@")
  [ ${#parts[@]} -gt 0 ] || parts=(c)
  for part in "${parts[@]}"; do
    case "$part" in
      c) dist_c ;;
      *) echo "unknown part: $part (c)" >&2; exit 2 ;;
    esac
  done
}

main "$@"
