#!/usr/bin/env bash
# A demonstration of what infracalc answers today. Usage: examples/demo.sh [PATH_TO_INFRACALC]
set -euo pipefail
bin=${1:-build/bin/infracalc}
run() {
  printf '\n$ infracalc %s\n' "$*"
  "$bin" "$@"
}
run --version
run calc '140 GB / (3.35 TB/s)'
run calc '700 W * 1 yr -> MWh'
run calc '192 GiB -> GB'
run hw show h100-sxm
run kv size --model llama-3-70b --tokens 128k
run kv size --model llama-3-70b --tokens 8000 --attention mha --batch 8 --json
run verify --quick
