#!/usr/bin/env bash
# Build and test times as CI sees them (issue 24): each step of `make test` in a fresh clone of the
# committed tree, `make demo` in a second fresh clone, and an incremental rebuild after touching one
# plugin source. Packages are assumed installed (the deps step is then a dpkg check). Prints one table in
# seconds of wall time, with the user+system CPU seconds beside each step (the CPU figure moves less than
# the wall figure when the machine is shared), and the heaviest translation units of the Release build.
# Usage: bench/build_time.sh [JOBS]   (default: nproc). Takes about 20 minutes on 2 cores.
set -euo pipefail
jobs=${1:-$(nproc)}
src=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export CCACHE_DISABLE=1

# A launcher that records each compile's wall time, passed to CMake through its environment variable.
cat >"$dir/timed" <<'SH'
#!/usr/bin/env bash
s=$(date +%s.%N); "$@"; rc=$?; e=$(date +%s.%N)
f=link; for a in "$@"; do case $a in *.cpp|*.cc|*.cxx) f=$a;; esac; done
echo "$(awk -v s="$s" -v e="$e" 'BEGIN{printf "%.1f", e - s}') $f" >>"$TIMED_LOG"
exit $rc
SH
chmod +x "$dir/timed"
export TIMED_LOG=$dir/units.log

total_wall=0
step_no=0
# step LABEL DIR CMD...: runs CMD in DIR, prints wall and CPU seconds (children's user+sys).
step() {
  local label=$1 where=$2; shift 2
  local s e c0 c1
  c0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
  s=$(date +%s.%N)
  (cd "$where" && "$@") >"$dir/step.log" 2>&1 || { echo "FAILED: $label"; tail -30 "$dir/step.log"; exit 1; }
  cp "$dir/step.log" "$dir/step.$((++step_no)).log"
  e=$(date +%s.%N)
  c1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
  local wall cpu
  wall=$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.1f", b - a}')
  cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.1f", (b - a) / hz}')
  printf '%-58s %9s s %9s s\n' "$label" "$wall" "$cpu"
  total_wall=$(awk -v a="$total_wall" -v b="$wall" 'BEGIN{print a + b}')
}

git clone -q "$src" "$dir/test"
git clone -q "$src" "$dir/demo"
printf '%-58s %11s %11s\n' "step ($jobs jobs, fresh clone of HEAD)" "wall" "CPU"
step "make test: Release configure + build (binary and tests)" "$dir/test" \
  env CMAKE_CXX_COMPILER_LAUNCHER="$dir/timed" make build JOBS="$jobs"
step "make test: Release tier, ctest" "$dir/test" make unit JOBS="$jobs"
step "make test: sanitizer configure + build" "$dir/test" make asan-build JOBS="$jobs"
step "make test: sanitizer tier, ctest" "$dir/test" make asan JOBS="$jobs"
printf '%-58s %9.1f s   target 1200 s   ratio %.2f\n' "make test, all steps" "$total_wall" "$(awk -v a="$total_wall" 'BEGIN{print a/1200}')"
total_wall=0
step "make demo (configure, build the binary, run the demo)" "$dir/demo" make demo JOBS="$jobs"
printf '%-58s %9.1f s   target  240 s   ratio %.2f\n' "make demo" "$total_wall" "$(awk -v a="$total_wall" 'BEGIN{print a/240}')"
touch "$dir/test/plugins/kv/calc_size.cpp"
total_wall=0
step "incremental: touch plugins/kv/calc_size.cpp, make build" "$dir/test" make build JOBS="$jobs"
echo "heaviest translation units of the Release build (compile wall time, s):"
awk "{s += \$1} END {printf \"sum of compile and link wall times: %.0f s\\n\", s}" "$TIMED_LOG"
sort -rn "$TIMED_LOG" | sed -n 1,8p | sed "s|$dir/test/||"
# slowest_tests N: the ten slowest tests of step N's ctest output.
slowest_tests() {
  grep -oE 'Test +#[0-9]+: .* +Passed +[0-9.]+ sec' "$dir/step.$1.log" |
    sed -E 's/Test +#[0-9]+: (.*[^ .]) [ .]*Passed +([0-9.]+) sec/\2 \1/' | sort -rn | sed -n 1,10p
}
echo "slowest tests of the Release tier (s):"; slowest_tests 2
echo "slowest tests of the sanitizer tier (s):"; slowest_tests 4
