#!/usr/bin/env bash
# The C library and its test suite built for another Linux target with Zig's
# C cross compiler (PyPI: ziglang), statically linked, then run here: natively
# for x86_64 musl, under qemu-user (Debian: qemu-user-static) for aarch64.
#   bash scripts/cross.sh x86_64-linux-musl      build + ctest
#   bash scripts/cross.sh aarch64-linux-musl     build + ctest under qemu
#   bash scripts/cross.sh TARGET --build-only
# Build directory: build/cross-TARGET.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

target="${1:?target, e.g. x86_64-linux-musl or aarch64-linux-musl}"
mode="${2:-test}"
dir="$BUILD/cross-$target"

install_python_tools >/dev/null
zig_wrappers "$dir/zig" "$target"
arch="${target%%-*}"
emulator=()
[ "$arch" = "$(uname -m)" ] || emulator=(-DCMAKE_CROSSCOMPILING_EMULATOR="$(command -v "qemu-$arch-static")")

log "cross build: $target ($dir)"
cmake -S "$ROOT" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR="$arch" \
  -DCMAKE_C_COMPILER="$dir/zig/cc" -DCMAKE_AR="$dir/zig/ar" -DCMAKE_RANLIB="$dir/zig/ranlib" \
  "${emulator[@]}" -DMINIGRAF_STATIC_EXECUTABLES=ON -DMINIGRAF_SHELL_LIBEDIT=OFF \
  -DMINIGRAF_BENCH=OFF -DMINIGRAF_PYTHON=OFF -DMINIGRAF_NODE=OFF -DMINIGRAF_JAVA=OFF \
  -DPython3_EXECUTABLE="$(command -v "$PYTHON")" >/dev/null
cmake --build "$dir/build" --parallel "$JOBS"
for exe in "$dir/build/minigraf" "$dir/build/tests/c/test_version"; do
  if readelf -l "$exe" | grep -q 'program interpreter'; then echo "$exe: not static" >&2; exit 1; fi
  echo "$exe: static, $(readelf -h "$exe" | sed -n 's/^ *Machine: *//p')"
done
[ "$mode" = "--build-only" ] && exit 0

# The C suite, the engine's unit tests, parity through the C runner and the
# example; the shell's own tests drive a terminal and stay native-only.
ctest --test-dir "$dir/build" --output-on-failure -j "$JOBS" -R '^(c_|engine_|parity_c$|example_c$)'
