#!/usr/bin/env bash
# Dead code in the library: a function with external linkage (engine/,
# capi/src) that nothing calls or takes the address of. Static functions
# are already covered by -Wunused-function (-Werror).
#
#   scripts/check-dead-code.sh SOURCE_ROOT OBJECT|DIR...   (a ctest test: check_dead_code)
#
# OBJECTs (or every object under a DIR) are the library's objects and those of the engine unit tests
# (a test hook such as vfs_set_default counts as used). A function counts
# as used when another object refers to it (nm: undefined there), or when
# its own source file, without comments, names it more than once (the
# definition plus a call or an address; an optimised object shows no trace
# of a call within its own file). minigraf_* functions are the ABI.
set -euo pipefail
ROOT="$1"; shift
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# A directory stands for the objects under it.
objects=()
for a in "$@"; do
  if [ -d "$a" ]; then
    while IFS= read -r o; do objects+=("$o"); done < <(find "$a" -name '*.o')
  else
    objects+=("$a")
  fi
done
set -- "${objects[@]}"

lib_objects=()
for o in "$@"; do
  case "$o" in
    */minigraf_engine.dir/* | */minigraf_capi.dir/*) lib_objects+=("$o") ;;
  esac
done
[ ${#lib_objects[@]} -gt 0 ] || { echo "check-dead-code: no library objects given" >&2; exit 2; }

nm -u "$@" 2>/dev/null | awk 'NF == 2 {print $2}' | sort -u >"$tmp/used"

# "function object" for every global function defined by a library object.
for o in "${lib_objects[@]}"; do
  nm --defined-only "$o" | awk -v o="$o" '$2 == "T" && $3 !~ /^minigraf_/ {print $3, o}'
done | sort >"$tmp/defined"

# The source file of an object: CMake names it <dir>.dir/<path>.c.o
source_of() { local p="${1#*.dir/}"; echo "$ROOT/${p%.o}"; }

dead=0
# Only the functions no other object refers to need their source read.
while read -r fn obj; do
  src="$(source_of "$obj")"
  [ -f "$src" ] || { echo "check-dead-code: no source for $obj" >&2; exit 2; }
  uses="$(cc -fpreprocessed -dD -E -P "$src" 2>/dev/null | grep -ow "$fn" | wc -l)"
  if [ "$uses" -le 1 ]; then
    echo "${src#"$ROOT"/}: $fn is never called (delete it, or call it)" >&2
    dead=$((dead + 1))
  fi
done < <(awk 'NR == FNR {used[$1]; next} !($1 in used)' "$tmp/used" "$tmp/defined")

if [ "$dead" -gt 0 ]; then
  echo "check-dead-code: $dead unused function(s)" >&2
  exit 1
fi
echo "check-dead-code: every function of the library is used ($(wc -l <"$tmp/defined") checked)"
