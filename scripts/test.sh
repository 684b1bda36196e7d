#!/usr/bin/env bash
# Every test, from a fresh machine: installs and builds what scripts/run.sh
# does, then runs the C suite (ctest, also under ASan + UBSan and under
# TSan), the parity
# suite in C, Python, Node and Java, pytest, node --test, the Maven tests and
# the consumer project, and the ABI check. Exits non-zero on any failure.
#   bash scripts/test.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

failures=()
suites=0
step() { # step NAME COMMAND...: run, remember a failure, go on
  local name="$1" rc; shift
  suites=$((suites + 1))
  log "$name"
  # In a subshell with errexit, and not as an `if` condition (where bash
  # ignores errexit): any failing command inside the step fails the step.
  set +e
  (set -e; "$@")
  rc=$?
  set -e
  if [ "$rc" -eq 0 ]; then echo "--> $name: ok"; else echo "--> $name: FAILED"; failures+=("$name"); fi
}

install_all
build_native
build_packages

# dist_into WORK KIND: scripts/dist.sh KIND into WORK/dist; the builds'
# output (where a compiler's errors go) is shown only when it fails.
dist_into() {
  MINIGRAF_DIST_DIR="$1/dist" bash "$ROOT/scripts/dist.sh" "$2" >"$1/dist.log" ||
    { tail -n 40 "$1/dist.log"; return 1; }
}

c_suite() { ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS"; }

# The library and the Python and Node glue built with ASan + UBSan: the C
# suite with leak checking, then pytest and node --test with the sanitizer
# runtime preloaded into the interpreters (their own allocations are not
# ours to judge, so leak checking is off there).
sanitizer_suite() {
  local dir="$BUILD-asan"
  cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMINIGRAF_SANITIZE=ON \
    -DMINIGRAF_PYTHON=ON -DMINIGRAF_NODE=ON -DMINIGRAF_JAVA=OFF -DPython3_EXECUTABLE="$BUILD/tools-venv/bin/python" >/dev/null
  cmake --build "$dir" --parallel "$JOBS"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir "$dir" --output-on-failure -j "$JOBS" -E '^(node_binding|parity_node)$'
  local preload
  preload="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
  (cd "$dir" && LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=0 PYTHONPATH="$dir/python" \
    "$BUILD/venv/bin/python" -m pytest -q -p no:cacheprovider "$ROOT/bindings/python/tests")
  (cd "$dir/node" && LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=0 node --test test/)
}

# The C suite built with ThreadSanitizer: close during calls, interrupt,
# parallel readers, write transactions beside readers, the store's checkpoint
# syncer thread (test_store), one store opened
# twice, snapshots beside commits, group commit (its gathering and its
# crash points), the hostile catalogue (its close_during cases), the
# stress test (8 threads and a second process), processes sharing a file,
# the SIGKILL loop (the engine's own unit tests run in the other builds,
# but for those that start threads: pager opens, snapshots, and the caches
# readers share without a lock; the database-level crash sweep takes
# minutes under TSan; so does c_leaf_summary, counts checked over
# thousands of commits on one thread: 7 minutes).
thread_sanitizer_suite() {
  local dir="$BUILD-tsan"
  cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMINIGRAF_SANITIZE_THREAD=ON \
    -DMINIGRAF_PYTHON=OFF -DMINIGRAF_NODE=OFF -DMINIGRAF_JAVA=OFF -DMINIGRAF_BENCH=OFF \
    -DPython3_EXECUTABLE="$BUILD/tools-venv/bin/python" >/dev/null
  cmake --build "$dir" --parallel "$JOBS"
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
    ctest --test-dir "$dir" --output-on-failure -j "$JOBS" -R '^(c_|parity_c$|example_c$|engine_test_pager_threads$|engine_test_snapshot$|engine_test_cache_threads$|engine_test_group_gather$|engine_test_group_commit$|engine_test_store$|hostile_c$)' \
    -E '^c_leaf_summary$'
}

parity_suite() {
  local jar="$HOME/.m2/repository/org/minigraf/minigraf/0.2.0/minigraf-0.2.0.jar"
  javac --release 11 -cp "$jar" -d "$BUILD/parity-java" "$ROOT/tests/parity/runners/java/ParityRunner.java"
  "$BUILD/tools-venv/bin/python" "$ROOT/tests/parity/run_parity.py" \
    --cases "$ROOT/tests/parity/cases" --keep "$BUILD/parity" \
    --c "$BUILD/tests/parity/runner_c" \
    --python "$BUILD/venv/bin/python $ROOT/tests/parity/runners/python_runner.py" \
    --node "env MINIGRAF_NODE_PACKAGE=$BUILD/node node $ROOT/tests/parity/runners/node_runner.js" \
    --java "java -cp $jar:$BUILD/parity-java ParityRunner"
}

python_suite() {
  (cd "$BUILD" && "$BUILD/venv/bin/python" -m pytest -q "$ROOT/bindings/python/tests")
  "$BUILD/venv/bin/python" "$ROOT/tests/hostile/runner_python.py" "$ROOT/tests/hostile/cases"
}

# node --test, then the hostile-input catalogue through the package (tests/hostile).
node_suite() {
  (cd "$BUILD/node" && node --test test/)
  MINIGRAF_NODE_PACKAGE="$BUILD/node" node "$ROOT/tests/hostile/runner_node.js" "$ROOT/tests/hostile/cases"
}

# What an npm user does, outside the source tree: the release tarball of
# scripts/dist.sh installed into a new project by an npm whose PATH has
# node, npm and sh but no compiler, make or Python (so the prebuild must
# load: a source build would fail), a smoke test, and the package's
# node --test suite run inside the installed copy. Then readelf on every
# prebuild: the right machine, musl ones needing only musl's libc.so (its
# loader), glibc ones no symbol version above GLIBC_2.17.
npm_package() {
  local work="$BUILD/npm-consumer" tool pkg
  rm -rf "$work" && mkdir -p "$work/app" "$work/bin"
  dist_into "$work" node
  for tool in node npm sh; do ln -s "$(command -v "$tool")" "$work/bin/$tool"; done
  for tool in cc gcc clang make python3; do
    if PATH="$work/bin" command -v "$tool" >/dev/null; then echo "$tool on the bare PATH" >&2; return 1; fi
  done
  (cd "$work/app" && PATH="$work/bin" npm init -y >/dev/null &&
    PATH="$work/bin" npm install --no-audit --no-fund --loglevel=error "$work"/dist/minigraf-*.tgz) || return 1
  pkg="$work/app/node_modules/minigraf"
  if [ -e "$pkg/build" ]; then echo "npm built the addon from source" >&2; return 1; fi
  (cd "$work/app" && node -e "
    const m = require('minigraf');
    const db = m.openInMemory();
    db.execute('(transact [[:a :n 9007199254740993]])');
    const r = db.execute('(query [:find ?n :where [:a :n ?n]])');
    if (r.results[0][0] !== 9007199254740993n) throw new Error('BigInt lost: ' + r.results[0][0]);
    console.log('npm package ok:', require.resolve('minigraf'));") || return 1
  npm_prebuild_choice "$work/app" glibc && npm_prebuild_choice "$work/app" musl || return 1
  cp -r "$ROOT/bindings/node/test" "$pkg/test"
  (cd "$pkg" && node --test test/) || return 1
  npm_prebuilds_check "$pkg/prebuilds"
}

# npm_prebuild_choice APP LIBC: with LIBC set as on such a system, the
# installed loader resolves this machine's prebuild for that libc.
npm_prebuild_choice() {
  local chosen
  chosen="$(cd "$1" && LIBC="$2" node -p \
    "require('node-gyp-build').resolve(require('path').dirname(require.resolve('minigraf')))")"
  echo "LIBC=$2: $chosen"
  [[ "$chosen" == */prebuilds/linux-x64/minigraf.napi.$2.node ]]
}

# npm_prebuilds_check DIR: the four prebuilds, each for its machine and libc.
npm_prebuilds_check() {
  local dir="$1" file machine needed glibc
  for file in linux-x64/minigraf.napi.glibc.node linux-x64/minigraf.napi.musl.node \
      linux-arm64/minigraf.napi.glibc.node linux-arm64/minigraf.napi.musl.node; do
    [ -f "$dir/$file" ] || { echo "missing prebuild $file" >&2; return 1; }
    machine="$(readelf -h "$dir/$file" | sed -n 's/^ *Machine: *//p')"
    needed="$(readelf -d "$dir/$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
    glibc="$(readelf --dyn-syms "$dir/$file" | { grep -o 'GLIBC_[0-9.]*' || true; } | sort -Vu | tail -1)"
    echo "$file: $machine; needs: $needed${glibc:+; newest symbol $glibc}"
    case "$file" in
      linux-arm64/*) [ "$machine" = AArch64 ] ;;
      *) [ "$machine" = "Advanced Micro Devices X86-64" ] ;;
    esac || { echo "$file: wrong machine" >&2; return 1; }
    case "$file" in
      *.musl.node) [ "$needed" = "libc.so " ] ;;
      *) [[ " $needed" == *" libc.so.6 "* ]] && [ "$(printf '%s\n' "$glibc" GLIBC_2.17 | sort -V | tail -1)" = GLIBC_2.17 ] ;;
    esac || { echo "$file: wrong libc" >&2; return 1; }
    if readelf --dyn-syms "$dir/$file" | grep ' GLOBAL DEFAULT *[0-9]* minigraf_' >/dev/null; then
      echo "$file exports the C API" >&2; return 1
    fi
  done
}

# Surefire, the consumer project, then the hostile-input catalogue through
# the installed jar (tests/hostile), compiled as parity's Java runner is.
java_suite() {
  local jar="$HOME/.m2/repository/org/minigraf/minigraf/0.2.0/minigraf-0.2.0.jar"
  (cd "$ROOT/bindings/java" && mvn -B -Dminigraf.cmake.build="$BUILD/java" verify)
  (cd "$ROOT/bindings/java/consumer" && mvn -B test)
  javac --release 11 -cp "$jar" -d "$BUILD/hostile-java" "$ROOT/tests/hostile/java/HostileRunner.java"
  java -cp "$jar:$BUILD/hostile-java" HostileRunner "$ROOT/tests/hostile/cases"
}

# The release jar of scripts/dist.sh as a Java user gets it: its four
# native libraries checked, then the jar installed into a fresh local Maven
# repository (seeded with the plugins of ~/.m2, minigraf removed; offline)
# and resolved from there by a copy of bindings/java/consumer, whose tests
# run against it. About 70 s with the build directories of an earlier run
# (build/dist-java/*), 3 to 4 minutes from none on a busy 2-core machine;
# the very first run on a machine also builds Zig's C libraries for the four
# targets once (kept in ~/.cache/zig).
java_jar() {
  local work="$BUILD/java-consumer" version
  version="$(sed -n 's/^#define MINIGRAF_VERSION "\(.*\)"/\1/p' "$ROOT/capi/include/minigraf.h")"
  rm -rf "$work" && mkdir -p "$work"
  dist_into "$work" java
  local dist="$work/dist/minigraf-$version"
  java_jar_natives "$dist.jar" "$work/natives" || return 1
  cp -r "$HOME/.m2/repository" "$work/m2" && rm -rf "$work/m2/org/minigraf"
  mvn -B -q -o -Dmaven.repo.local="$work/m2" \
    org.apache.maven.plugins:maven-install-plugin:3.1.3:install-file -Dfile="$dist.jar" \
    -DpomFile="$dist.pom" -Dsources="$dist-sources.jar" -Djavadoc="$dist-javadoc.jar"
  cp -r "$ROOT/bindings/java/consumer" "$work/consumer"
  (cd "$work/consumer" && mvn -B -q -o -Dmaven.repo.local="$work/m2" test)
}

# java_jar_natives JAR DIR: the jar holds exactly the four JNI libraries,
# each an ELF of its architecture exporting only JNI entry points; the glibc
# ones need no symbol newer than GLIBC_2.17, the musl ones need musl's C
# library (libc.so, which musl's loader ld-musl-<arch>.so.1 provides) and
# nothing of glibc. (None but linux-x86_64 is loaded here: this machine has
# no musl or aarch64 JVM.)
java_jar_natives() {
  local jar="$1" dir="$2" platform lib machine
  local expected="native/linux-aarch64/libminigraf_jni.so native/linux-musl-aarch64/libminigraf_jni.so native/linux-musl-x86_64/libminigraf_jni.so native/linux-x86_64/libminigraf_jni.so"
  local listed; listed="$(unzip -Z1 "$jar" 'native/*' | grep -v '/$' | sort | tr '\n' ' ')"
  [ "$listed" = "$expected " ] || { echo "jar natives: $listed" >&2; return 1; }
  unzip -q -o "$jar" 'native/*' -d "$dir"
  for platform in linux-x86_64 linux-aarch64 linux-musl-x86_64 linux-musl-aarch64; do
    lib="$dir/native/$platform/libminigraf_jni.so"
    case "$platform" in *aarch64) machine=AArch64 ;; *) machine=X86-64 ;; esac
    readelf -h "$lib" | grep -q "Machine:.*$machine" || { echo "$lib: not $machine" >&2; return 1; }
    ! nm -D --defined-only "$lib" | awk '{print $NF}' | grep -v '^Java_' | grep -q . ||
      { echo "$lib: exports more than Java_*" >&2; return 1; }
    local needed; needed="$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
    case "$platform" in
      linux-musl-*)
        [[ " $needed" == *" libc.so "* && "$needed" != *libc.so.6* ]] &&
          ! readelf -V "$lib" | grep -q GLIBC_ || { echo "$lib: not musl ($needed)" >&2; return 1; } ;;
      *)
        local newest; newest="$(readelf -V "$lib" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)"
        [[ " $needed" == *" libc.so.6 "* ]] && [ "$(printf '%s\nGLIBC_2.17\n' "$newest" | sort -V | tail -1)" = GLIBC_2.17 ] ||
          { echo "$lib: needs $needed $newest" >&2; return 1; } ;;
    esac
    echo "$platform: $machine, needs $needed"
  done
}

abi_check() { bash "$ROOT/scripts/abi-check.sh" "$BUILD"; }

# Every libFuzzer target (ASan, UBSan; tests/fuzz): its seed corpus, then a
# fixed number of inputs from a fixed seed (the same run on every machine;
# long runs: scripts/fuzz.sh 3600 TARGET).
fuzz_targets() { (cd "$BUILD" && MINIGRAF_FUZZ_RUNS=repeatable MINIGRAF_FUZZ_BUILD="$BUILD-fuzz" bash "$ROOT/scripts/fuzz.sh"); }

# What a C user does with the C tarball of scripts/dist.sh, unpacked
# elsewhere: build examples/c with plain cc -lminigraf, with pkg-config,
# and with CMake's find_package (shared and static), and run each.
c_tarball() {
  local work="$BUILD/c-consumer" tarball
  rm -rf "$work" && mkdir -p "$work"
  dist_into "$work" c
  tarball="$(ls "$work"/dist/minigraf-*-linux-*.tar.gz)"
  tar -C "$work" -xzf "$tarball"
  local prefix; prefix="$(ls -d "$work"/minigraf-*-linux-*/)"
  cp -r "$ROOT/examples/c" "$work/example"
  local flags="-std=c11 -Wall -Wextra -Werror"
  make -s -C "$work/example" CFLAGS="$flags -I$prefix/include" \
    LDFLAGS="-L$prefix/lib -Wl,-rpath,$prefix/lib" run
  make -s -C "$work/example" clean
  PKG_CONFIG_PATH="$prefix/lib/pkgconfig" make -s -C "$work/example" CFLAGS="$flags" \
    LDFLAGS="-Wl,-rpath,$prefix/lib" run-pkg-config
  cmake -S "$work/example" -B "$work/example-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$work/example-build" >/dev/null
  "$work/example-build/example" && "$work/example-build/example_static"
  echo "shell from the tarball: $("$prefix/bin/minigraf" --version)"
}

# What a pip user does, outside the source tree and in fresh venvs: the
# x86_64 manylinux wheel of scripts/dist.sh (which checks it with
# auditwheel and abi3audit) installed, smoke-tested and put through pytest;
# the sdist installed (built from source by pip, SWIG from PyPI, no tool of
# ours on PATH) and smoke-tested. The other three wheels come from
# `bash scripts/dist.sh python`, outside CI's time budget.
python_package() {
  local work="$BUILD/py-consumer" path
  rm -rf "$work" && mkdir -p "$work"
  MINIGRAF_DIST_DIR="$work/dist" MINIGRAF_PYTHON_TARGETS=x86_64-linux-gnu.2.17 \
    bash "$ROOT/scripts/dist.sh" python
  cp -r "$ROOT/bindings/python/tests" "$work/tests"
  "$PYTHON" -m venv "$work/wheel-venv"
  "$work/wheel-venv/bin/pip" install -q --disable-pip-version-check pytest \
    "$work"/dist/minigraf-*-cp310-abi3-manylinux*_x86_64.whl
  (cd "$work" && wheel-venv/bin/python -c "$PYTHON_SMOKE" wheel-venv &&
    wheel-venv/bin/python -m pytest -q -p no:cacheprovider tests)
  path="$(tr ':' '\n' <<<"$PATH" | grep -v "$BUILD/tools-venv" | paste -sd:)"
  "$PYTHON" -m venv "$work/sdist-venv"
  PATH="$path" "$work/sdist-venv/bin/pip" install -q --disable-pip-version-check \
    "$work"/dist/minigraf-*.tar.gz
  (cd "$work" && sdist-venv/bin/python -c "$PYTHON_SMOKE" sdist-venv)
}

# The smoke test: argv[1] is the venv the package must be imported from.
PYTHON_SMOKE='
import os, sys, minigraf
here = os.path.realpath(minigraf.__file__)
assert here.startswith(os.path.realpath(sys.argv[1]) + os.sep), here
with minigraf.open_in_memory() as db:
    db.execute("(transact [[:alice :person/name \"Alice\"] [:alice :person/age 30]])")
    rows = db.query("(query [:find ?n ?a :where [?e :person/name ?n] [?e :person/age ?a]])").fetchall()
    assert rows == [("Alice", 30)], rows
    pq = db.prepare("(query [:find ?n :where [?e :person/age ?a] [(>= ?a $min)] [?e :person/name ?n]])")
    assert pq.query(min=18).fetchall() == [("Alice",)]
print("python package ok:", minigraf.__version__, here)
'

# The C suite built with Zig for x86_64 musl, statically linked, run here.
# (The aarch64 build runs under qemu-user by its own command, outside CI's
# time budget: bash scripts/cross.sh aarch64-linux-musl.)
cross_musl_x86_64() { bash "$ROOT/scripts/cross.sh" x86_64-linux-musl; }

step "formatting: clang-format, ruff, prettier, google-java-format (check-format.sh)" bash "$ROOT/scripts/check-format.sh"
step "C suite (ctest)" c_suite
step "C suite, pytest and node --test under ASan + UBSan" sanitizer_suite
step "C suite under ThreadSanitizer" thread_sanitizer_suite
step "parity: C, Python, Node, Java" parity_suite
step "Python (pytest)" python_suite
step "Node (node --test, hostile cases)" node_suite
step "Node package: dist tarball installed with no compiler, node --test in it, prebuilds checked" npm_package
step "Java (Maven Surefire + consumer, hostile cases)" java_suite
step "Java release jar (four platforms) from a fresh local repository" java_jar
step "ABI baseline (abidiff)" abi_check
step "fuzzing: parse, commands, file, wal, json, shell (fixed inputs)" fuzz_targets
step "C suite built for x86_64-linux-musl (Zig, static)" cross_musl_x86_64
step "C tarball: examples/c with cc, pkg-config and find_package" c_tarball
step "Python package: abi3 wheel and sdist in fresh venvs" python_package

echo
echo "suites: $((suites - ${#failures[@]})) passed, ${#failures[@]} failed"
if [ ${#failures[@]} -gt 0 ]; then
  echo "FAILED: ${failures[*]}"
  exit 1
fi
