#!/usr/bin/env bash
# Writes the JSON Schemas (draft 2020-12) of infracalc's JSON output into a folder: result.schema.json (any result
# document or failed batch record) and PLUGIN-CALC.schema.json for each calculator. The files in docs/schema/ are
# its output; a test regenerates them and fails when they differ. Usage: generate.sh [INFRACALC] [DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../../build/bin/infracalc}
out=${2:-$here}
mkdir -p "$out"
"$bin" schema >"$out/result.schema.json"
"$bin" list | awk '/^built-in commands/ { exit } /^[a-z]+ / { plugin = $1; next } /^  [a-z]/ { print plugin, $1 }' | while read -r plugin calc; do
  "$bin" schema "$plugin" "$calc" >"$out/$plugin-$calc.schema.json"
done
