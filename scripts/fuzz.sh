#!/bin/sh
# Builds the parser fuzzer (clang, libFuzzer + ASan + UBSan) and runs it
# for a fixed time.
#
#   scripts/fuzz.sh [seconds]        default 60
#
# New inputs go to $BUILD/fuzz-corpus (the checked-in seed corpus in
# tests/fuzz/corpus/parse is only read). With MINIGRAF_FUZZ_MERGE=1 the
# interesting new inputs are minimised into the checked-in corpus afterwards.
# Exits non-zero on a crash, leak, timeout or broken invariant; the
# reproducer is left in the current directory (crash-*, leak-*, timeout-*).
set -eu
seconds=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MINIGRAF_FUZZ_BUILD:-$root/build-fuzz}
jobs=${MINIGRAF_FUZZ_JOBS:-1}
parallel=""
if [ "$jobs" -gt 1 ]; then # libFuzzer then writes fuzz-N.log into the current directory
    parallel="-jobs=$jobs -workers=$jobs"
fi

cc=${CC:-clang}
runtime=$("$cc" -print-resource-dir 2>/dev/null)/lib/linux/libclang_rt.fuzzer-x86_64.a
if [ "$(uname -m)" = x86_64 ] && [ ! -f "$runtime" ]; then
    echo "fuzz.sh: $cc has no libFuzzer runtime ($runtime); install libclang-rt-14-dev" >&2
    exit 1
fi

CC=$cc cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMINIGRAF_FUZZ=ON -DMINIGRAF_TESTS=OFF -DMINIGRAF_BENCH=OFF \
    -DMINIGRAF_PYTHON=OFF -DMINIGRAF_NODE=OFF -DMINIGRAF_JAVA=OFF >/dev/null
cmake --build "$build" --target fuzz_parse

seeds=$root/tests/fuzz/corpus/parse
work=$build/fuzz-corpus
mkdir -p "$work"
"$build/tests/fuzz/fuzz_parse" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=4096 -dict="$root/tests/fuzz/parse.dict" -print_final_stats=1 \
    $parallel "$work" "$seeds"

if [ "${MINIGRAF_FUZZ_MERGE:-0}" = 1 ]; then
    "$build/tests/fuzz/fuzz_parse" -merge=1 "$seeds" "$work"
fi
