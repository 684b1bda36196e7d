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
  local name="$1"; shift
  suites=$((suites + 1))
  log "$name"
  if "$@"; then echo "--> $name: ok"; else echo "--> $name: FAILED"; failures+=("$name"); fi
}

install_all
build_native
build_packages

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
# parallel readers, write transactions beside readers, one store opened
# twice (the engine's own unit tests run in the other builds).
thread_sanitizer_suite() {
  local dir="$BUILD-tsan"
  cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMINIGRAF_SANITIZE_THREAD=ON \
    -DMINIGRAF_PYTHON=OFF -DMINIGRAF_NODE=OFF -DMINIGRAF_JAVA=OFF -DMINIGRAF_BENCH=OFF \
    -DPython3_EXECUTABLE="$BUILD/tools-venv/bin/python" >/dev/null
  cmake --build "$dir" --parallel "$JOBS"
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
    ctest --test-dir "$dir" --output-on-failure -j "$JOBS" -R '^(c_|parity_c$|example_c$|engine_test_pager_threads$)'
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

python_suite() { (cd "$BUILD" && "$BUILD/venv/bin/python" -m pytest -q "$ROOT/bindings/python/tests"); }

node_suite() { (cd "$BUILD/node" && node --test test/); }

# What an npm user does: install the packed tarball into a new project and
# require it from there.
npm_package() {
  local app="$BUILD/npm-consumer"
  rm -rf "$app" && mkdir -p "$app"
  (cd "$app" && npm init -y >/dev/null &&
    npm install --no-audit --no-fund --loglevel=error "$BUILD/minigraf-0.2.0.tgz" &&
    node -e "
      const m = require('minigraf');
      const db = m.openInMemory();
      db.execute('(transact [[:a :n 9007199254740993]])');
      const r = db.execute('(query [:find ?n :where [:a :n ?n]])');
      if (r.results[0][0] !== 9007199254740993n) throw new Error('BigInt lost: ' + r.results[0][0]);
      console.log('npm package ok:', JSON.stringify(r.variables));")
}

java_suite() {
  (cd "$ROOT/bindings/java" && mvn -B -Dminigraf.cmake.build="$BUILD/java" verify) &&
    (cd "$ROOT/bindings/java/consumer" && mvn -B test)
}

abi_check() { bash "$ROOT/scripts/abi-check.sh" "$BUILD"; }

# The reader + parser fuzzer (libFuzzer, ASan, UBSan) for a fixed minute.
parser_fuzz() { (cd "$BUILD" && MINIGRAF_FUZZ_BUILD="$BUILD-fuzz" bash "$ROOT/scripts/fuzz.sh" 60); }

# What a C user does with the C tarball of scripts/dist.sh, unpacked
# elsewhere: build examples/c with plain cc -lminigraf, with pkg-config,
# and with CMake's find_package (shared and static), and run each.
c_tarball() {
  local work="$BUILD/c-consumer" tarball
  rm -rf "$work" && mkdir -p "$work"
  MINIGRAF_DIST_DIR="$work/dist" bash "$ROOT/scripts/dist.sh" c >/dev/null
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

step "C suite (ctest)" c_suite
step "C suite, pytest and node --test under ASan + UBSan" sanitizer_suite
step "C suite under ThreadSanitizer" thread_sanitizer_suite
step "parity: C, Python, Node, Java" parity_suite
step "Python (pytest)" python_suite
step "Node (node --test)" node_suite
step "Node package installed from the tarball" npm_package
step "Java (Maven Surefire + consumer)" java_suite
step "ABI baseline (abidiff)" abi_check
step "parser fuzzing (60 s)" parser_fuzz
step "C suite built for x86_64-linux-musl (Zig, static)" cross_musl_x86_64
step "C tarball: examples/c with cc, pkg-config and find_package" c_tarball
step "Python package: abi3 wheel and sdist in fresh venvs" python_package

echo
echo "suites: $((suites - ${#failures[@]})) passed, ${#failures[@]} failed"
if [ ${#failures[@]} -gt 0 ]; then
  echo "FAILED: ${failures[*]}"
  exit 1
fi
