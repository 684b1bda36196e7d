#!/usr/bin/env bash
# Fails when a source comment or a document cites the external language
# spec (LANGUAGE.md, "spec 9.6", "spec §13", "Appendix B.7", "the spec's
# 8.12", "decision D4" without language.md) instead of docs/language.md,
# the project's own reference (cite it as `language.md §8.12.1`,
# `language.md §8.9, D16`). Prints each offending line.
#
#   scripts/check-citations.sh [ROOT]
set -euo pipefail
ROOT="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$ROOT"

# Where citations live: the code of every package and the docs (the
# benchmark report and log cite spec/BENCHMARKS.md, another document).
paths=(engine capi shell bindings tests bench examples docs README.md)
excludes=(':!docs/language.md' ':!docs/benchmarks.md' ':!docs/performance-log.md'
  ':!bindings/node/node_modules')

patterns=(
  'LANGUAGE\.md'                                   # the spec by name
  '\b[Ss]pec(/LANGUAGE\.md)?('"'"'s)?( section)? §?[0-9]'  # spec 9.6, spec §13, spec section 18
  '\b[Ss]pec \([0-9]'                              # the spec (6.2)
  '\bAppendix [ABC]\b'                             # the spec's appendices
  '(^|[^.] )[Dd]ecision D[0-9]'                    # decision D4 (language.md decision D4 is fine)
)
found=0
for p in "${patterns[@]}"; do
  if git grep -nEI "$p" -- "${paths[@]}" "${excludes[@]}" | grep -v 'language\.md decision D'; then
    found=1
  fi
done
if [ $found -ne 0 ]; then
  echo "check-citations: cite docs/language.md (language.md §N), not the external spec" >&2
  exit 1
fi
echo "check-citations: no citation of the external spec"
