#!/usr/bin/env bash
# Runs every fuzz target for a bounded time and prints its execution count. Usage: run.sh BUILD_DIR SECONDS
# [TARGET...]. With FUZZ_RUNS=N set, each target runs N executions instead (SECONDS is then a safety cap).
set -euo pipefail
build=$1
seconds=${2:-60}
shift 2 || shift $#
runs=()
[ -n "${FUZZ_RUNS:-}" ] && runs=(-runs="$FUZZ_RUNS")
here=$(cd "$(dirname "$0")" && pwd)
status=0
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("$build"/tests/fuzz/fuzz_*)
for target in "${targets[@]}"; do
  [ -x "$target" ] || target=$build/tests/fuzz/$target
  name=$(basename "$target")
  seeds="$here/corpus/${name#fuzz_}"
  work="$build/corpus/${name#fuzz_}"
  artifacts="$build/artifacts/$name/"
  mkdir -p "$work" "$artifacts"
  log="$build/$name.log"
  # Crash, leak, timeout and slow-unit reproducers go into the build folder, never the working directory.
  if "$target" "${runs[@]}" -artifact_prefix="$artifacts" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$work" "$seeds" >"$log" 2>&1; then
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' || echo "$seconds")
    echo "$name: $execs executions in ${secs}s, no crash, leak or sanitizer report"
  else
    echo "$name: FAILED (see $log)"; tail -30 "$log"; status=1
  fi
done
exit $status
