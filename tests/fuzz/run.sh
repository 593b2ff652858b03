#!/usr/bin/env bash
# Runs every fuzz target for a bounded time and prints its execution count. Usage: run.sh BUILD_DIR SECONDS
set -euo pipefail
build=$1
seconds=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
status=0
for target in "$build"/tests/fuzz/fuzz_*; do
  name=$(basename "$target")
  seeds="$here/corpus/${name#fuzz_}"
  work="$build/corpus/${name#fuzz_}"
  mkdir -p "$work"
  log="$build/$name.log"
  if "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$work" "$seeds" >"$log" 2>&1; then
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    echo "$name: $execs executions in ${seconds}s, no crash"
  else
    echo "$name: FAILED (see $log)"; tail -30 "$log"; status=1
  fi
done
exit $status
