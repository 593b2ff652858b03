#!/usr/bin/env bash
# Sweep throughput of `infracalc plan`: points per second (best of 3) for 100,000-point grids of the Llama 3
# 70B H100 example, and the whole command's wall time with CSV output. Run by bench/run.sh; alone:
#   bench/plan_sweep.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
bin=$build/bin/infracalc
here=$(cd "$(dirname "$0")" && pwd)
plan=$here/../examples/llama3-70b-h100.toml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

row() {  # label value unit target kind(time|rate)
  awk -v l="$1" -v v="$2" -v u="$3" -v t="$4" -v k="$5" 'BEGIN {
    r = v / t;
    printf "%-62s %12.4g %-9s %10.4g %-6s %s %.2f\n", l, v, u, t, u, (k == "time" ? "time/target" : "rate/target"), r }'
}

sweep() {  # label, then the sweep arguments
  local label=$1; shift
  local best=0 wall=1e9
  for _ in 1 2 3; do
    local start end
    start=$(date +%s.%N)
    "$bin" plan "$plan" "$@" --csv --stats >"$tmp/out.csv" 2>"$tmp/err"
    end=$(date +%s.%N)
    local rate
    rate=$(sed -n 's/.* in [0-9.]* s (\([0-9]*\) points\/s).*/\1/p' "$tmp/err")
    best=$(awk -v a="$best" -v b="$rate" 'BEGIN { print (b > a) ? b : a }')
    wall=$(awk -v a="$wall" -v s="$start" -v e="$end" 'BEGIN { w = e - s; print (w < a) ? w : a }')
  done
  row "plan sweep: $label, points/s (best of 3)" "$best" pts/s 100000 rate
  row "plan sweep: $label, whole command with CSV (best of 3)" "$wall" s 5 time
}

# The load and the headroom: 1,000 rates x 100 maximum loads. Fleet sizing, the fabric and the cost of
# ownership change with the fleet; decode, fit and kv are computed once.
sweep "100k points, rate x max_load" --sweep workload.rate=1/s..1000/s:1000 --sweep workload.max_load=50%..90%:100
# Prices: 1,000 capex values x 100 tariffs; the chain down to the cost of ownership re-runs per distinct pair.
sweep "100k points, capex x tariff" --sweep money.capex_per_gpu='$20000..$60000:1000' --sweep site.tariff='$0.03/kWh..$0.15/kWh:100' \
  --columns owner_cost,cost_per_mtok,cost_per_year

# Every core (--jobs, issue 21): the same grid on one worker and on every core this process may use, interleaved
# so both see the same machine; the figure that holds on another host is the ratio (at most the core count).
scaling() {  # label, then the sweep arguments
  local label=$1; shift
  local one=0 all=0 cores
  cores=$(nproc)
  for _ in 1 2 3; do
    for jobs in 1 "$cores"; do
      "$bin" plan "$plan" "$@" --csv --stats --jobs "$jobs" >"$tmp/out.csv" 2>"$tmp/err" || true
      local rate
      rate=$(sed -n 's/.* in [0-9.]* s (\([0-9]*\) points\/s).*/\1/p' "$tmp/err")
      if [ "$jobs" = 1 ]; then one=$(awk -v a="$one" -v b="$rate" 'BEGIN { print (b > a) ? b : a }')
      else all=$(awk -v a="$all" -v b="$rate" 'BEGIN { print (b > a) ? b : a }'); fi
    done
  done
  row "plan sweep: $label, one core, points/s (best of 3)" "$one" pts/s 1 rate
  row "plan sweep: $label, $cores cores, points/s (best of 3)" "$all" pts/s 1 rate
  row "  ... all cores / one core (ideal $cores)" "$(awk -v a="$all" -v b="$one" 'BEGIN { print (b > 0) ? a / b : 0 }')" x "$cores" rate
}
# Without simulation: the 100,000-point load grid above. With it: every point re-simulates one replica
# (the prompt length changes the serving simulation's input).
scaling "100k points, rate x max_load" --sweep workload.rate=1/s..1000/s:1000 --sweep workload.max_load=50%..90%:100
scaling "48 points re-running the serving simulation" --sweep workload.prompt=500..5200:48
