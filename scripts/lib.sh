# Shared steps of scripts/run.sh and scripts/test.sh. Sourced, not run.
# Every step is idempotent: a second run reuses what the first installed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${MINIGRAF_BUILD_DIR:-$ROOT/build}"
PYTHON="${PYTHON:-python3}"
JOBS="$(nproc 2>/dev/null || echo 2)"

log() { printf '\n==> %s\n' "$*"; }

# Debian packages: compilers and build tools, JDK + Maven, Node, and the
# checkers (valgrind, abidiff; clang with its runtime libraries for
# libFuzzer and the sanitizers, which Debian ships apart from clang), and
# SQLite's headers for bench/compare, libedit for the shell's line editing,
# qemu-user to run the aarch64 build of scripts/cross.sh.
APT_PACKAGES="build-essential cmake ninja-build python3 python3-venv python3-dev
  openjdk-17-jdk-headless maven valgrind abigail-tools clang libclang-rt-14-dev
  libsqlite3-dev libedit-dev pkg-config qemu-user-static"

install_system_packages() {
  local missing=()
  for p in $APT_PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  command -v node >/dev/null && command -v npm >/dev/null || missing+=(nodejs npm)
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing system packages: ${missing[*]}"
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

# Every tool a suite needs, checked before anything is built: a missing one
# stops here with the package that provides it, not as a link error deep in
# a suite's log.
check_tools() {
  local absent=()
  need() { # need PACKAGE TEST...: the test must pass, else PACKAGE is missing
    local package="$1"; shift
    "$@" >/dev/null 2>&1 || absent+=("$package (for: $*)")
  }
  need build-essential command -v cc
  need cmake command -v cmake
  need ninja-build command -v ninja
  need python3-venv "$PYTHON" -c 'import ensurepip, venv'
  need python3-dev test -f "$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h"
  need openjdk-17-jdk-headless command -v javac
  need maven command -v mvn
  need nodejs command -v node
  need npm command -v npm
  need valgrind command -v valgrind
  need abigail-tools command -v abidiff
  need clang command -v clang
  need libclang-rt-14-dev clang_runtime libclang_rt.fuzzer-x86_64.a
  need libclang-rt-14-dev clang_runtime libclang_rt.asan-x86_64.a
  need libclang-rt-14-dev clang_runtime libclang_rt.ubsan_standalone-x86_64.a
  need libsqlite3-dev test -f /usr/include/sqlite3.h
  need pkg-config command -v pkg-config
  need libedit-dev pkg-config --exists libedit
  need "swig>=4.2 (scripts/requirements-dev.txt)" swig_at_least_4_2
  need "ziglang (scripts/requirements-dev.txt)" "$BUILD/tools-venv/bin/python" -c 'import ziglang'
  need qemu-user-static command -v qemu-aarch64-static
  if [ ${#absent[@]} -gt 0 ]; then
    echo "missing tools; install these packages:" >&2
    printf '  %s\n' "${absent[@]}" >&2
    exit 1
  fi
}

# clang_runtime FILE: clang's runtime library FILE exists.
clang_runtime() { test -f "$(clang -print-resource-dir)/lib/linux/$1"; }

swig_at_least_4_2() {
  local v; v="$(swig -version | sed -n 's/^SWIG Version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')"
  set -- $v
  [ "${1:-0}" -gt 4 ] || { [ "${1:-0}" -eq 4 ] && [ "${2:-0}" -ge 2 ]; }
}

# Build-time tools from PyPI (SWIG >= 4.2 has no Debian package here) and
# the Python test runner, in a venv of the project's own.
install_python_tools() {
  if [ ! -x "$BUILD/tools-venv/bin/python" ]; then
    log "creating $BUILD/tools-venv"
    mkdir -p "$BUILD"
    "$PYTHON" -m venv "$BUILD/tools-venv"
  fi
  "$BUILD/tools-venv/bin/pip" install -q --disable-pip-version-check \
    -r "$ROOT/scripts/requirements-dev.txt"
  export PATH="$BUILD/tools-venv/bin:$PATH"
}

# zig_wrappers DIR TARGET: DIR/cc, DIR/ar and DIR/ranlib, single executables
# as CMake wants them, calling the zig of the ziglang package for TARGET
# (scripts/cross.sh, scripts/dist.sh).
zig_wrappers() {
  local wrappers="$1" zig
  zig="$("$BUILD/tools-venv/bin/python" -c 'import ziglang, os; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')"
  mkdir -p "$wrappers"
  printf '#!/bin/sh\nexec "%s" cc -target %s "$@"\n' "$zig" "$2" >"$wrappers/cc"
  printf '#!/bin/sh\nexec "%s" ar "$@"\n' "$zig" >"$wrappers/ar"
  printf '#!/bin/sh\nexec "%s" ranlib "$@"\n' "$zig" >"$wrappers/ranlib"
  chmod +x "$wrappers/cc" "$wrappers/ar" "$wrappers/ranlib"
}

install_node_tools() {
  log "npm ci (bindings/node: node-api-headers, node-gyp-build, prettier; not its own install script)"
  (cd "$ROOT/bindings/node" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
}

install_all() {
  install_system_packages
  install_python_tools
  install_node_tools
  check_tools
}

# Configure and build the library, shell, C tests and the native parts of
# the three packages (ON: a missing tool is an error, never a skipped package).
build_native() {
  log "cmake build ($BUILD)"
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMINIGRAF_PYTHON=ON -DMINIGRAF_NODE=ON -DMINIGRAF_JAVA=ON \
    -DPython3_EXECUTABLE="$BUILD/tools-venv/bin/python" >/dev/null
  cmake --build "$BUILD" --parallel "$JOBS"
}

# The installable packages: a Python wheel in a fresh venv, the npm tarball,
# and the Maven artifact in the local repository.
build_packages() {
  log "python: pip install . into $BUILD/venv"
  rm -rf "$BUILD/venv"
  "$PYTHON" -m venv "$BUILD/venv"
  "$BUILD/venv/bin/pip" install -q --disable-pip-version-check pytest
  "$BUILD/venv/bin/pip" install -q --disable-pip-version-check "$ROOT"

  log "node: npm pack"
  cmake --build "$BUILD" --target node_package

  log "java: mvn install (tests run in scripts/test.sh)"
  (cd "$ROOT/bindings/java" && mvn -B -q -DskipTests -Dminigraf.cmake.build="$BUILD/java" install)
}
