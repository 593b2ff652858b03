#!/usr/bin/env bash
# Build-time figures (issue 13): a clean configure and build of the whole project (binary, tests and their
# dependencies, as `make build` does) in a fresh directory with ccache out of the way, then an incremental
# rebuild after touching one plugin source file. Prints the two wall-clock times and the heaviest
# translation units. Usage: bench/build_time.sh [JOBS]   (default: nproc). Takes several minutes.
set -euo pipefail
jobs=${1:-$(nproc)}
src=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# A launcher that records each compile's wall time (and bypasses any ccache the user configured).
cat >"$dir/timed" <<'SH'
#!/usr/bin/env bash
s=$(date +%s.%N); "$@"; rc=$?; e=$(date +%s.%N)
for a in "$@"; do case $a in *.cpp|*.cc) f=$a;; esac; done
echo "$(awk -v s="$s" -v e="$e" 'BEGIN{printf "%.1f", e - s}') ${f:-link}" >>"$TIMED_LOG"
exit $rc
SH
chmod +x "$dir/timed"
export TIMED_LOG=$dir/units.log CCACHE_DISABLE=1
start=$(date +%s.%N)
cmake -S "$src" -B "$dir/b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER="$dir/timed" >/dev/null
cmake --build "$dir/b" -j"$jobs" >/dev/null
end=$(date +%s.%N)
clean=$(awk -v s="$start" -v e="$end" 'BEGIN{print e - s}')
touch "$src/plugins/kv/kv_size_calc.cpp"
start=$(date +%s.%N)
cmake --build "$dir/b" -j"$jobs" >/dev/null
end=$(date +%s.%N)
incr=$(awk -v s="$start" -v e="$end" 'BEGIN{print e - s}')
printf '%-62s %8.1f s   target %4d s   ratio %.2f\n' "clean build, $jobs jobs (configure + everything make build builds)" "$clean" 360 "$(awk -v a="$clean" 'BEGIN{print a/360}')"
printf '%-62s %8.1f s   target %4d s   ratio %.2f\n' "incremental: touch plugins/kv/kv_size_calc.cpp, rebuild all" "$incr" 30 "$(awk -v a="$incr" 'BEGIN{print a/30}')"
echo "heaviest translation units (compile wall time, s):"
sort -rn "$TIMED_LOG" | head -8 | sed "s|$src/||"
