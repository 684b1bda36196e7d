#!/usr/bin/env bash
# The engine's include graph points down only (docs/architecture.md §1):
# a file in engine/<folder>/ may include headers of its own folder and of
# the folders listed before it in LAYERS, never of one listed after it.
# Any other edge fails, unless ALLOWED names it.
#
#   scripts/check-layers.sh [SOURCE_ROOT]     (a ctest test: check_layers)
set -euo pipefail
ROOT="${1:-$(cd "$(dirname "$0")/.." && pwd)}"

# Bottom to top.
LAYERS="base model regex edn datalog host storage store rules plan exec db"

# Known upward edges, "file -> header", each to be removed by moving the
# header down (none today).
ALLOWED="
"

declare -A RANK # folder -> its position in LAYERS
i=0
for l in $LAYERS; do RANK[$l]=$i; i=$((i + 1)); done

failures=0
seen_allowed=""
cd "$ROOT/engine"
for folder in */; do
  folder="${folder%/}"
  if [ -z "${RANK[$folder]:-}" ]; then
    echo "check-layers: engine/$folder is not in LAYERS (scripts/check-layers.sh)" >&2
    failures=$((failures + 1))
  fi
done
while IFS=: read -r file line header; do
  from="${file%%/*}" to="${header%%/*}"
  [ "$header" = "$to" ] && { # no folder: only engine/ itself may hold such a header
    echo "engine/$file:$line: includes \"$header\", which is not an engine/<folder>/ header" >&2
    failures=$((failures + 1)); continue; }
  [ "$from" = "$to" ] && continue
  rt="${RANK[$to]:-}" rf="${RANK[$from]:-}"
  if [ -z "$rt" ]; then
    echo "engine/$file:$line: includes \"$header\" from outside engine/" >&2
    failures=$((failures + 1))
  elif [ -n "$rf" ] && [ "$rt" -gt "$rf" ]; then
    if [[ "$ALLOWED" == *$'\n'"$file -> $header"$'\n'* ]]; then
      seen_allowed+="$file -> $header"$'\n'
    else
      echo "engine/$file:$line: $from/ includes $header, a layer above it ($LAYERS)" >&2
      failures=$((failures + 1))
    fi
  fi
done < <(grep -rn --include='*.c' --include='*.h' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' . |
         sed 's|^\./||; s|:[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*|:\1|')

# An allowed edge that no longer exists is only noted: the move it waited
# for happened; delete its line.
while IFS= read -r edge; do
  [ -n "$edge" ] && [[ $'\n'"$seen_allowed" != *$'\n'"$edge"$'\n'* ]] &&
    echo "check-layers: note: allowed edge no longer present, remove it: $edge"
done <<<"$ALLOWED"

if [ "$failures" -gt 0 ]; then
  echo "check-layers: $failures upward or unknown include(s)" >&2
  exit 1
fi
echo "check-layers: engine/ includes point down ($LAYERS)"
