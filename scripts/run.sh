#!/usr/bin/env bash
# The main job, from a fresh machine: install every dependency, build the
# library, the shell and the three packages, then run the minigraf shell on
# the example script (an in-memory database).
#   bash scripts/run.sh [example.edn]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

install_all
build_native
build_packages

example="${1:-$ROOT/examples/social.edn}"
log "minigraf < $example"
"$BUILD/minigraf" < "$example"
