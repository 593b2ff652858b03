#!/usr/bin/env bash
# Benchmarks: whole-process latency of single calculations (median of repeated runs) against the target.
# Usage: bench/run.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
bin=$build/bin/infracalc
timer=$build/bench/proc_time
runs=${RUNS:-200}
printf '%-58s %10s %10s %10s %8s\n' "figure" "median" "p10" "p90" "target"
latency() {
  local label=$1 target=$2; shift 2
  read -r med p10 p90 < <("$timer" "$runs" "$bin" "$@")
  printf '%-58s %8.2f ms %7.2f ms %7.2f ms %6s ms  (%.2fx of target)\n' "$label" "$med" "$p10" "$p90" "$target" \
    "$(awk -v m="$med" -v t="$target" 'BEGIN{print m/t}')"
}
latency "kv size --model llama-3-70b --tokens 8000 --json" 5 kv size --model llama-3-70b --tokens 8000 --json
latency "calc '140 GB / (3.35 TB/s)'" 5 calc '140 GB / (3.35 TB/s)'
latency "hw show h100-sxm --json" 5 hw show h100-sxm --json
