#!/usr/bin/env bash
# The ABI rules of ARCHITECTURE.md §3, checked on a built library:
#  1. the library exports only minigraf_* symbols, each with a version node
#     (and the static library defines no other global symbol);
#  2. compared with the checked-in baseline (abi/minigraf.abi.xml), nothing
#     was removed or changed incompatibly (additions are fine).
#   bash scripts/abi-check.sh BUILD_DIR            check
#   bash scripts/abi-check.sh BUILD_DIR --update   rewrite the baseline
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:?build dir}"
lib="$(readlink -f "$build/libminigraf.so")"
baseline="$root/abi/minigraf.abi.xml"

exports="$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^$')"
strays="$(printf '%s\n' "$exports" | grep -v '^minigraf_[a-z0-9_]*@@MINIGRAF_' | grep -v '^MINIGRAF_' || true)"
if [ -n "$strays" ]; then
  echo "exported symbols outside minigraf_* or without a version:"; echo "$strays"; exit 1
fi
echo "exports: $(printf '%s\n' "$exports" | grep -c '^minigraf_') minigraf_* symbols, all versioned"

static_strays="$(nm -g --defined-only "$build/libminigraf.a" | awk 'NF==3 {print $3}' | grep -v '^minigraf_' || true)"
if [ -n "$static_strays" ]; then
  echo "libminigraf.a defines global symbols outside minigraf_*:"; echo "$static_strays"; exit 1
fi
echo "libminigraf.a: only minigraf_* symbols are global"

if [ "${2:-}" = "--update" ]; then
  abidw --headers-dir "$root/capi/include" --out-file "$baseline" "$lib"
  echo "baseline written: $baseline"; exit 0
fi
set +e
abidiff --headers-dir2 "$root/capi/include" "$baseline" "$lib"
rc=$?
set -e
# abidiff's status is a bit mask: 1 error, 2 usage, 4 change, 8 incompatible.
if [ $((rc & 11)) -ne 0 ]; then echo "ABI check failed (abidiff status $rc)"; exit 1; fi
echo "ABI check passed (abidiff status $rc: $([ $rc -eq 0 ] && echo identical || echo compatible additions))"
