#!/usr/bin/env bash
# Formats the repository's sources in place, one formatter per language:
#   C            clang-format (.clang-format)      engine/ capi/ shell/ tests/ bench/
#                                                  examples/ and each package's native C
#   Python       ruff format (pyproject.toml [tool.ruff])
#   JavaScript   prettier (.prettierrc.json), from bindings/node's devDependencies
#   Java         google-java-format through spotless (bindings/java/pom.xml)
# Only files git tracks are touched (nothing under build*/, node_modules/ or
# generated SWIG sources); EXCLUDE below lists tracked files kept as written.
#
#   scripts/format.sh           rewrite the files
#   scripts/format.sh --check   change nothing; list every file that differs,
#                               exit 1 if any does (scripts/check-format.sh)
#   scripts/format.sh [--check] c|python|js|java ...   only those languages
#
# Tools: clang-format and ruff from scripts/requirements-dev.txt
# (install_python_tools), prettier from install_node_tools, Maven.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

CHECK=0
if [ "${1:-}" = "--check" ]; then CHECK=1; shift; fi
LANGS="${*:-c python js java}"

# Tracked files kept as written (extended regex on the path); none today.
EXCLUDE='^$'

tracked() { git ls-files -z -- "$@" | tr '\0' '\n' | grep -Ev "$EXCLUDE" || true; }

tool() { # tool NAME: the project's copy of NAME, else the one on PATH
  if [ -x "$BUILD/tools-venv/bin/$1" ]; then echo "$BUILD/tools-venv/bin/$1"
  elif command -v "$1" >/dev/null; then command -v "$1"
  else echo "format.sh: $1 not found; run: source scripts/lib.sh && install_python_tools" >&2; exit 2
  fi
}

FAILED=0
differ() { # differ LANG "FILES": report the files (one a line) that are not formatted
  local files; files="$(printf '%s\n' "$2" | sed '/^$/d' | sort -u)"
  [ -z "$files" ] && return 0
  echo "$1: not formatted:"; echo "$files" | sed 's/^/  /'
  FAILED=1
}

format_c() {
  local cf; cf="$(tool clang-format)"
  local files
  mapfile -t files < <(tracked 'engine/*.[ch]' 'capi/*.[ch]' 'shell/*.[ch]' 'tests/*.[ch]' \
    'bench/*.[ch]' 'examples/*.[ch]' 'bindings/*.[ch]')
  [ ${#files[@]} -eq 0 ] && return 0
  if [ $CHECK -eq 1 ]; then
    differ C "$("$cf" --style=file --dry-run "${files[@]}" 2>&1 |
      sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: .*clang-format-violations.*/\1/p')"
  else
    "$cf" --style=file -i "${files[@]}"
  fi
}

format_python() {
  local ruff; ruff="$(tool ruff)"
  local files
  mapfile -t files < <(tracked '*.py')
  [ ${#files[@]} -eq 0 ] && return 0
  if [ $CHECK -eq 1 ]; then
    differ Python "$({ "$ruff" format --check --output-format concise --force-exclude \
      "${files[@]}" 2>&1 || true; } | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: unformatted:.*/\1/p')"
  else
    "$ruff" format --quiet --force-exclude "${files[@]}"
  fi
}

format_js() {
  local prettier="$ROOT/bindings/node/node_modules/.bin/prettier"
  [ -x "$prettier" ] || { echo "format.sh: prettier not found; run: source scripts/lib.sh && install_node_tools" >&2; exit 2; }
  local files
  mapfile -t files < <(tracked '*.js' '*.mjs' '*.cjs' '*.ts')
  [ ${#files[@]} -eq 0 ] && return 0
  if [ $CHECK -eq 1 ]; then
    differ JavaScript "$("$prettier" --list-different "${files[@]}" || true)"
  else
    "$prettier" --write --log-level warn "${files[@]}"
  fi
}

format_java() {
  # The plugin's includes (bindings/java/pom.xml) name the Java sources:
  # the package, its consumer check and tests/parity/runners/java.
  if [ $CHECK -eq 0 ]; then
    (cd bindings/java && mvn -B -q spotless:apply)
    return
  fi
  # spotless:check names only the first few files; so format a scratch copy
  # of the same layout and list every file that came out different.
  local scratch files f
  scratch="$(mktemp -d)"
  mapfile -t files < <(tracked 'bindings/java/*.java' 'tests/parity/runners/java/*.java')
  for f in bindings/java/pom.xml "${files[@]}"; do
    mkdir -p "$scratch/$(dirname "$f")"
    cp "$f" "$scratch/$f"
  done
  if ! (cd "$scratch/bindings/java" && mvn -B -q spotless:apply) >"$scratch/mvn.log" 2>&1; then
    cat "$scratch/mvn.log" >&2
    rm -rf "$scratch"
    echo "format.sh: spotless:apply failed" >&2
    FAILED=1
    return
  fi
  differ Java "$(for f in "${files[@]}"; do cmp -s "$f" "$scratch/$f" || echo "$f"; done)"
  rm -rf "$scratch"
}

for lang in $LANGS; do
  case "$lang" in
  c) format_c ;;
  python) format_python ;;
  js) format_js ;;
  java) format_java ;;
  *) echo "format.sh: unknown language '$lang' (c, python, js, java)" >&2; exit 2 ;;
  esac
done
exit $FAILED
