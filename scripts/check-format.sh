#!/usr/bin/env bash
# Fails (exit 1) when a source file is not as scripts/format.sh would write
# it, and lists those files by language; changes nothing. Run
# scripts/format.sh to fix them. Arguments as format.sh's: c python js java.
exec "$(dirname "${BASH_SOURCE[0]}")/format.sh" --check "$@"
