#!/usr/bin/env bash
# Sweeps on every core and across machines (issue 21, item 5): the rows of a sweep are the same bytes whatever
# --jobs is; the parts of --shard K/N joined by `plan merge` give the unsplit sweep's output byte for byte (rows,
# Pareto front, stderr counts, exit status, workbook), in every output format; merge refuses what cannot be joined.
# Usage: plan_shard_test.sh INFRACALC SOURCE_DIR
set -u
bin=$1
src=$2
ex=$src/examples/llama3-70b-h100.toml
# shellcheck source=../shell_env.sh
source "$(dirname "$0")/../shell_env.sh"

same() { if cmp -s "$1" "$2"; then ok; else bad "$3: $1 and $2 differ"; diff "$1" "$2" | head -10 | sed 's/^/  | /' >&2; fi; }
status_is() { if [ "$1" -eq "$2" ]; then ok; else bad "$3: exit $1, want $2"; fi; }
err_has() { if grep -qF -- "$1" "$2"; then ok; else bad "$2 lacks '$1'"; sed 's/^/  | /' "$2" >&2; fi; }

# 2,100 points (many blocks per worker) with plugin runs that change along the grid; 16 points of which the 8 with a
# 10 ms TPOT target fail it (exit 1 and the counts on stderr must survive the split); a front over two systems. Few
# points re-run the serving simulation (each TPOT target, system and batch does): the sanitizer tier runs this too.
grid=(--sweep 'workload.rate=1/s..100/s:300' --sweep 'workload.max_load=0.5..0.9:7')
failing=(--sweep 'workload.tpot=10ms,60ms' --sweep 'workload.rate=1/s..300/s:8')
front=(--set money.rental= --sweep hardware.system=dgx-h100,dgx-b200 --sweep batch=8,128 --sweep 'workload.rate=1/s..300/s:8'
       --pareto cost_per_mtok,tpot)

# --jobs: the same rows, in grid order, from one process and from several.
"$bin" plan "$ex" "${grid[@]}" --csv --jobs 1 >"$tmp/j1.csv" 2>"$tmp/j1.err"
status_is $? 0 "--jobs 1"
for j in 2 3 7; do
  "$bin" plan "$ex" "${grid[@]}" --csv --jobs $j >"$tmp/j.csv" 2>"$tmp/j.err"
  status_is $? 0 "--jobs $j"
  same "$tmp/j1.csv" "$tmp/j.csv" "--jobs $j rows"
  same "$tmp/j1.err" "$tmp/j.err" "--jobs $j stderr"
done
rows=$(wc -l <"$tmp/j1.csv")
if [ "$rows" -eq 2101 ]; then ok; else bad "the grid gave $rows lines, want 2,101"; fi
"$bin" plan "$ex" "${failing[@]}" --json --jobs 1 >"$tmp/f1.json" 2>"$tmp/f1.err"
s1=$?
"$bin" plan "$ex" "${failing[@]}" --json --jobs 3 >"$tmp/f3.json" 2>"$tmp/f3.err"
status_is $? $s1 "--jobs 3 with failed checks"
status_is $s1 1 "a sweep with failed checks"
same "$tmp/f1.json" "$tmp/f3.json" "--jobs 3 JSON rows"
same "$tmp/f1.err" "$tmp/f3.err" "--jobs 3 failed-check counts"
# A step that fails at every point (tp 5 does not divide Llama 3 70B's 64 heads) while the rate moves: each row names
# the step as a point evaluated afresh does, whichever worker reached it first (a point updated from the one before
# once gave the calculator's message alone).
"$bin" plan "$ex" --set hardware.tp=5 --sweep 'workload.rate=1/s..300/s:6' --json --jobs 1 >"$tmp/e1.json" 2>"$tmp/e1.err"
status_is $? 1 "a sweep whose step fails, --jobs 1"
"$bin" plan "$ex" --set hardware.tp=5 --sweep 'workload.rate=1/s..300/s:6' --json --jobs 3 >"$tmp/e3.json" 2>"$tmp/e3.err"
same "$tmp/e1.json" "$tmp/e3.json" "--jobs 3 rows of a failed step"
named=$(grep -c '"error": "step fit_tp (fit inference): --tp 5 does not divide' "$tmp/e1.json")
if [ "$named" -eq 6 ]; then ok; else bad "$named of 6 rows name the failed step"; fi

# --shard K/N + plan merge = the unsplit sweep, for each format, with and without a front; N = 5 shards of a
# 3-point sweep leaves two of them empty.
split_and_merge() {  # NAME N FORMAT-ARGS... -- SWEEP-ARGS...
  local name=$1 n=$2; shift 2
  local fmt=()
  while [ "$1" != "--" ]; do fmt+=("$1"); shift; done
  shift
  "$bin" plan "$ex" "$@" "${fmt[@]}" >"$tmp/whole" 2>"$tmp/whole.err"
  local want=$?
  rm -f "$tmp"/part.*
  local k
  for ((k = 1; k <= n; k++)); do
    "$bin" plan "$ex" "$@" --shard "$k/$n" >"$tmp/part.$k" 2>>"$tmp/shard.err" || bad "$name: shard $k/$n failed"
  done
  # The parts in reverse order: merge orders them by their headers, not by the command line.
  local parts=()
  for ((k = n; k >= 1; k--)); do parts+=("$tmp/part.$k"); done
  "$bin" plan merge "${parts[@]}" "${fmt[@]}" >"$tmp/merged" 2>"$tmp/merged.err"
  status_is $? $want "$name: merge exit status"
  same "$tmp/whole" "$tmp/merged" "$name: merged output"
  same "$tmp/whole.err" "$tmp/merged.err" "$name: merged stderr"
}
split_and_merge "csv" 3 --csv -- "${grid[@]}"
split_and_merge "json lines" 4 --json -- "${grid[@]}"
split_and_merge "table, failed checks" 4 -- "${failing[@]}"
split_and_merge "markdown, failed checks" 2 --format md -- "${failing[@]}"
split_and_merge "empty shards" 5 --csv -- --sweep 'workload.rate=1/s..10/s:3'
split_and_merge "pareto csv" 3 --csv -- "${front[@]}"
split_and_merge "pareto table" 2 -- "${front[@]}"

# A shard with --pareto keeps its own front only: fewer rows than points.
"$bin" plan "$ex" "${front[@]}" --shard 1/2 >"$tmp/p1"
lines=$(wc -l <"$tmp/p1")
if [ "$lines" -lt 34 ]; then ok; else bad "a Pareto shard kept $lines lines of 32 points"; fi

# The workbook from merged parts is the unsplit sweep's (a zip: compare the sheet XML inside).
if "$bin" plan "$ex" "${front[@]}" --xlsx "$tmp/whole.xlsx" >/dev/null 2>&1; then
  "$bin" plan "$ex" "${front[@]}" --shard 1/2 >"$tmp/x1"
  "$bin" plan "$ex" "${front[@]}" --shard 2/2 >"$tmp/x2"
  "$bin" plan merge "$tmp/x1" "$tmp/x2" --xlsx "$tmp/merged.xlsx" >/dev/null 2>&1
  status_is $? 0 "merge --xlsx"
  if command -v unzip >/dev/null; then
    for sheet in $(unzip -Z1 "$tmp/whole.xlsx" | grep '^xl/worksheets/'); do
      unzip -p "$tmp/whole.xlsx" "$sheet" >"$tmp/s.whole"
      unzip -p "$tmp/merged.xlsx" "$sheet" >"$tmp/s.merged"
      same "$tmp/s.whole" "$tmp/s.merged" "workbook $sheet"
    done
  fi
fi

# What merge refuses, each with exit 2 and a message naming the problem.
for k in 1 2 3; do "$bin" plan "$ex" "${grid[@]}" --shard "$k/3" >"$tmp/g.$k"; done
refuse() {  # WANT-TEXT ARGS...
  local want=$1; shift
  "$bin" plan merge "$@" >"$tmp/out" 2>"$tmp/err"
  status_is $? 2 "merge $*"
  err_has "$want" "$tmp/err"
  if [ ! -s "$tmp/out" ]; then ok; else bad "merge $* printed rows"; fi
}
refuse "missing 3/3" "$tmp/g.1" "$tmp/g.2"
refuse "given twice" "$tmp/g.1" "$tmp/g.1" "$tmp/g.2" "$tmp/g.3"
head -n 100 "$tmp/g.2" >"$tmp/cut"
refuse "did not finish" "$tmp/g.1" "$tmp/cut" "$tmp/g.3"
"$bin" plan "$ex" "${failing[@]}" --shard 2/3 >"$tmp/other"
refuse "another sweep" "$tmp/g.1" "$tmp/other" "$tmp/g.3"
refuse "not a sweep part" "$tmp/j1.csv"
refuse "is a directory" "$tmp"
refuse "no parts given"
sed '5s/"point": [0-9]*/"point": 1/' "$tmp/g.1" >"$tmp/disorder"
refuse "out of order" "$tmp/disorder" "$tmp/g.2" "$tmp/g.3"
# A plan that changed after the shards ran is not merged (its digest is in every part).
cp "$ex" "$tmp/plan.toml"
for k in 1 2; do "$bin" plan "$tmp/plan.toml" --sweep 'workload.rate=1/s..10/s:10' --shard "$k/2" >"$tmp/c.$k"; done
echo "# changed" >>"$tmp/plan.toml"
refuse "is not the plan the parts were made from" "$tmp/c.1" "$tmp/c.2"

# What --shard and --jobs refuse.
expect2() {  # WANT-TEXT ARGS...
  local want=$1; shift
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  status_is $? 2 "$*"
  err_has "$want" "$tmp/err"
}
expect2 "expected K/N" plan "$ex" "${grid[@]}" --shard 0/3
expect2 "expected K/N" plan "$ex" "${grid[@]}" --shard 4/3
expect2 "expected K/N" plan "$ex" "${grid[@]}" --shard 1/x
expect2 "no sweep to split" plan "$ex" --shard 1/2
expect2 "not --json, --csv or --format" plan "$ex" "${grid[@]}" --shard 1/2 --csv
expect2 "not a workbook, a page or charts" plan "$ex" "${grid[@]}" --shard 1/2 --xlsx "$tmp/q.xlsx"
expect2 "--jobs: expected a whole number" plan "$ex" "${grid[@]}" --jobs 0
expect2 "--jobs: expected a whole number" plan "$ex" "${grid[@]}" --jobs 4294967297

echo "plan shard tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
