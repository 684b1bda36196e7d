#!/bin/sh
# Builds the libFuzzer targets (clang, libFuzzer + ASan + UBSan) and runs
# each for a fixed time, one after the other.
#
#   scripts/fuzz.sh [seconds-per-target] [target...]   default 30, every target
#   scripts/fuzz.sh 3600 wal                           a long run of one target
#   MINIGRAF_FUZZ_RUNS=repeatable scripts/fuzz.sh      fixed inputs (CI)
#   MINIGRAF_FUZZ_JOBS=2 scripts/fuzz.sh 600 commands  parallel workers
#
# Targets (tests/fuzz/README.md): parse, commands, file, wal, json, shell.
# The shell target runs in $BUILD/fuzz-run/shell, the one directory its
# confined shell writes to; its reproducers still come to the current one.
# Each run first replays its checked-in seed corpus (tests/fuzz/corpus/<t>,
# only read), then mutates; new inputs go to $BUILD/fuzz-corpus/<t>. With
# MINIGRAF_FUZZ_MERGE=1 the interesting new inputs are minimised into the
# checked-in corpus afterwards. `scripts/fuzz.sh seeds` rewrites the seed
# databases of the file and wal targets (fuzz_seeds.c).
# Exits non-zero on a crash, leak, timeout or broken invariant; the
# reproducer is left in the current directory (crash-*, leak-*, timeout-*)
# and replays with `$BUILD/tests/fuzz/fuzz_<t> <file>`. The last lines of
# each run ("stat::number_of_executed_units") give the executions.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MINIGRAF_FUZZ_BUILD:-$root/build-fuzz}
mkdir -p "$build"
build=$(cd "$build" && pwd) # the shell target runs in a directory of its own
jobs=${MINIGRAF_FUZZ_JOBS:-1}
all="parse commands file wal json shell"
seconds=${1:-30}
[ $# -gt 0 ] && shift
targets=${*:-$all}

cc=${CC:-clang}
runtime=$("$cc" -print-resource-dir 2>/dev/null)/lib/linux/libclang_rt.fuzzer-x86_64.a
if [ "$(uname -m)" = x86_64 ] && [ ! -f "$runtime" ]; then
    echo "fuzz.sh: $cc has no libFuzzer runtime ($runtime); install libclang-rt-14-dev" >&2
    exit 1
fi

CC=$cc cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMINIGRAF_FUZZ=ON -DMINIGRAF_TESTS=OFF -DMINIGRAF_BENCH=OFF \
    -DMINIGRAF_PYTHON=OFF -DMINIGRAF_NODE=OFF -DMINIGRAF_JAVA=OFF >/dev/null

if [ "$seconds" = seeds ]; then
    cmake --build "$build" --target fuzz_seeds
    "$build/tests/fuzz/fuzz_seeds" "$root/tests/fuzz"
    exit 0
fi

# Per target: the longest input and the dictionary.
options() {
    case $1 in
    parse | commands) echo "-max_len=4096 -dict=$root/tests/fuzz/parse.dict" ;;
    file) echo "-max_len=131072" ;;
    wal) echo "-max_len=16384" ;;
    json) echo "-max_len=4096 -dict=$root/tests/fuzz/json.dict" ;;
    shell) echo "-max_len=4096 -dict=$root/tests/fuzz/shell.dict -artifact_prefix=$PWD/" ;;
    *) echo "fuzz.sh: unknown target $1 (targets: $all)" >&2; exit 1 ;;
    esac
}

# How long each target runs: $seconds of mutation, or, with
# MINIGRAF_FUZZ_RUNS=repeatable (what CI uses), a fixed number of inputs
# from a fixed seed, so that a run gives the same answer on every machine
# however fast it is (about 30 s each here).
limit() {
    if [ "${MINIGRAF_FUZZ_RUNS:-}" = repeatable ]; then
        case $1 in
        parse) echo "-seed=1 -runs=100000" ;;
        commands) echo "-seed=1 -runs=1500" ;;
        file) echo "-seed=1 -runs=3000" ;;
        wal) echo "-seed=1 -runs=20000" ;;
        json) echo "-seed=1 -runs=50000" ;;
        shell) echo "-seed=1 -runs=2500" ;;
        esac
    else
        echo "-max_total_time=$seconds"
    fi
}

parallel=""
if [ "$jobs" -gt 1 ]; then # libFuzzer then writes fuzz-N.log into the current directory
    parallel="-jobs=$jobs -workers=$jobs"
fi
for t in $targets; do
    opts=$(options "$t")
    cmake --build "$build" --target "fuzz_$t"
    seeds=$root/tests/fuzz/corpus/$t
    work=$build/fuzz-corpus/$t
    mkdir -p "$work"
    run_dir=.
    if [ "$t" = shell ]; then
        run_dir=$build/fuzz-run/shell
        mkdir -p "$run_dir"
    fi
    echo "fuzz.sh: $t ($(limit "$t"))"
    # shellcheck disable=SC2086 # the option lists are split on purpose
    (cd "$run_dir" && "$build/tests/fuzz/fuzz_$t" $(limit "$t") -timeout=20 -rss_limit_mb=2048 \
        -print_final_stats=1 $opts $parallel "$work" "$seeds")
    if [ "${MINIGRAF_FUZZ_MERGE:-0}" = 1 ]; then
        (cd "$run_dir" && "$build/tests/fuzz/fuzz_$t" -merge=1 $opts "$seeds" "$work")
    fi
done
