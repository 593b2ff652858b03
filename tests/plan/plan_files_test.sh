#!/usr/bin/env bash
# The output files of `plan --xlsx F --plot DIR` (issue 23, items 10-12): written whatever happens to stdout,
# placed as one transaction (all or none, the old set kept on failure), and never over an existing file without
# --force even when several runs race, never over a link, a device or a file the run reads.
# Usage: plan_files_test.sh INFRACALC SOURCE_DIR
set -u
bin=$1
src=$2
E=$src/examples/llama3-70b-h100.toml
# shellcheck source=../shell_env.sh
source "$(dirname "$0")/../shell_env.sh"

xlsx=1
"$bin" plan "$E" --xlsx "$tmp/probe.xlsx" >/dev/null 2>&1 || xlsx=0
rm -f "$tmp/probe.xlsx"

# No temporaries or set-aside old files left in a directory.
no_strays() {
  local d=$1 s
  s=$(find "$d" -name '.*.tmp-*' -o -name '.*.old-*' 2>/dev/null)
  if [ -z "$s" ]; then ok; else bad "stray files in $d: $s"; fi
}
charts="roofline memory cost rack-power occupancy"
have_set() {  # DIR: the workbook (when this build writes one) and the five charts
  local d=$1 c
  if [ "$xlsx" = 0 ] || [ -s "$d/q.xlsx" ]; then ok; else bad "no $d/q.xlsx"; fi
  for c in $charts; do if [ -s "$d/plots/$c.svg" ]; then ok; else bad "no $d/plots/$c.svg"; fi; done
}
xlsx_args() { if [ "$xlsx" = 1 ]; then echo "--xlsx $1/q.xlsx"; fi; }

# --- item 10: a closed stdout does not skip the files --------------------------------------------------------
# A pipe whose reader has already gone (deterministic: a FIFO opened for reading and writing, then opened for
# writing, then its only reader closed).
# The worksheet (about 40 kB) and a 300-point sweep (100 kB; over the rate, which re-runs no simulation) are larger
# than stdout's buffer, so the write fails before the files are due.
mkfifo "$tmp/fifo"
for args in "--sweep workload.rate=1/s..100/s:300" ""; do
  d=$tmp/pipe-${args:+sweep}; mkdir -p "$d"
  exec {rw}<>"$tmp/fifo"
  exec {w}>"$tmp/fifo"
  exec {rw}<&-
  # shellcheck disable=SC2046,SC2086
  "$bin" plan "$E" $args $(xlsx_args "$d") --plot "$d/plots" >&"$w" 2>"$d/err"
  st=$?
  exec {w}>&-
  if [ "$st" -eq 0 ]; then ok; else bad "closed pipe ($args): exit $st (want 0 with the files written)"; cat "$d/err" >&2; fi
  have_set "$d"
  no_strays "$d"
done
# The issue's own pipeline (grep leaves early, or not: either way no exit 0 without the files).
d=$tmp/pipe1; mkdir -p "$d"
# shellcheck disable=SC2046
"$bin" plan "$E" --sweep 'batch=8,16' $(xlsx_args "$d") --plot "$d/plots" | grep -q gpus
st=${PIPESTATUS[0]}
if [ "$st" -eq 0 ]; then have_set "$d"; else ok; fi  # never exit 0 without the files
# stdout on a full device: the files are written, then the stdout error is the exit status (2).
if [ -w /dev/full ]; then
  d=$tmp/full; mkdir -p "$d"
  # shellcheck disable=SC2046
  "$bin" plan "$E" $(xlsx_args "$d") --plot "$d/plots" >/dev/full 2>"$d/err"
  st=$?
  if [ "$st" -eq 2 ]; then ok; else bad "stdout on /dev/full: exit $st (want 2)"; fi
  have_set "$d"
fi

# --- item 11: one transaction ----------------------------------------------------------------------------
# A first set, kept as the "old" one.
d=$tmp/tx; mkdir -p "$d"
# shellcheck disable=SC2046
"$bin" plan "$E" $(xlsx_args "$d") --plot "$d/plots" >/dev/null 2>&1 || bad "first set not written"
cp -r "$d" "$tmp/tx-old"
# A file-size limit makes a write fail midway as a full disk does (root is not stopped by permissions, a
# size limit stops everyone). At 5 kB the first charts fit and the occupancy chart (over 6 kB) does not; at
# 24 kB the workbook (over 30 kB) does not. The old set stays, nothing new and no temporary is left, and
# nothing reaches stdout.
for case in 5:plots 5:all 24:all; do
  kb=${case%%:*}; what=${case#*:}
  {
    if [ $what = all ]; then set -- $(xlsx_args "$d") --plot "$d/plots"; else set -- --plot "$d/plots"; fi
    (trap '' XFSZ; ulimit -f "$kb"; exec "$bin" plan "$E" --set workload.rate=3/s "$@" --force) >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [ "$st" -eq 2 ]; then ok; else bad "write limit ${kb}k ($what): exit $st (want 2)"; sed 's/^/  | /' "$tmp/err" >&2; fi
    if [ ! -s "$tmp/out" ]; then ok; else bad "write limit ${kb}k ($what): the worksheet was printed although the files failed"; fi
    if diff -r "$tmp/tx-old" "$d" >/dev/null; then ok; else bad "write limit ${kb}k ($what): the old set was changed"; diff -rq "$tmp/tx-old" "$d" >&2; fi
  }
done
no_strays "$d"
# The same limit with no old files: nothing new at all, not even the chart directory.
d=$tmp/tx-new; mkdir -p "$d"
(trap '' XFSZ; ulimit -f 5; exec "$bin" plan "$E" --plot "$d/plots") >/dev/null 2>&1
if [ -z "$(ls -A "$d")" ]; then ok; else bad "a failed set left: $(ls -A "$d" "$d/plots")"; fi
# A target that cannot be written (a chart directory that cannot be created; read-only for a non-root user):
# the workbook is not written either.
d=$tmp/ro; mkdir -p "$d"
if [ "$(id -u)" -ne 0 ]; then
  mkdir -p "$d/locked"; chmod 555 "$d/locked"; bad_dir=$d/locked/plots
else
  bad_dir=/proc/infracalc-no-such-dir/plots  # root writes through permissions; /proc takes no new directory
fi
# shellcheck disable=SC2046
"$bin" plan "$E" $(xlsx_args "$d") --plot "$bad_dir" >"$tmp/out" 2>"$tmp/err"
st=$?
if [ "$st" -eq 2 ]; then ok; else bad "unwritable --plot: exit $st (want 2)"; fi
if [ ! -e "$d/q.xlsx" ]; then ok; else bad "unwritable --plot: the workbook was written anyway"; fi
if [ ! -s "$tmp/out" ]; then ok; else bad "unwritable --plot: stdout not empty"; fi
no_strays "$d"
[ -d "$d/locked" ] && chmod 755 "$d/locked"
# A successful --force run replaces the whole set, and leaves nothing aside.
d=$tmp/tx
# shellcheck disable=SC2046
"$bin" plan "$E" --set workload.rate=3/s $(xlsx_args "$d") --plot "$d/plots" --force >/dev/null 2>&1 || bad "replacing the set failed"
if ! cmp -s "$tmp/tx-old/plots/cost.svg" "$d/plots/cost.svg"; then ok; else bad "--force did not replace cost.svg"; fi
no_strays "$d"

# --- item 12: never over an existing file, under races -----------------------------------------------------
race() {  # WHAT ARGS...: eight writers of one target at once; exactly one succeeds
  local what=$1 i n=0; shift
  local d=$tmp/race-$what; mkdir -p "$d"
  for i in 1 2 3 4 5 6 7 8; do
    ("$bin" plan "$E" "$@" >/dev/null 2>"$d/err$i"; echo $? >"$d/st$i") &
  done
  wait
  for i in 1 2 3 4 5 6 7 8; do [ "$(cat "$d/st$i")" = 0 ] && n=$((n + 1)); done
  if [ "$n" -eq 1 ]; then ok; else bad "$what: $n of 8 racing writers succeeded (want exactly 1)"; fi
  no_strays "$tmp/race-$what"
}
[ "$xlsx" = 1 ] && race xlsx --xlsx "$tmp/race-xlsx/same.xlsx"
race plot --plot "$tmp/race-plot/charts"
no_strays "$tmp/race-plot/charts"

# --force replaces only regular files: not a symbolic link, not a FIFO.
d=$tmp/kinds; mkdir -p "$d"
echo precious >"$d/real.txt"
ln -s real.txt "$d/link.xlsx"
mkfifo "$d/fifo.xlsx"
for t in link fifo; do
  for flag in --xlsx --plot; do
    [ "$flag" = --xlsx ] && [ "$xlsx" = 0 ] && continue
    if [ "$flag" = --xlsx ]; then args=(--xlsx "$d/$t.xlsx"); else mkdir -p "$d/p-$t"; args=(--plot "$d/p-$t")
      if [ $t = link ]; then ln -sf ../real.txt "$d/p-$t/cost.svg"; else rm -f "$d/p-$t/cost.svg"; mkfifo "$d/p-$t/cost.svg"; fi; fi
    "$bin" plan "$E" "${args[@]}" --force >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [ "$st" -eq 2 ]; then ok; else bad "$flag over a $t with --force: exit $st (want 2)"; fi
    if [ $t = link ]; then want="symbolic link"; else want="FIFO"; fi
    if grep -qF "$want" "$tmp/err"; then ok; else bad "$flag over a $t: stderr lacks '$want'"; sed 's/^/  | /' "$tmp/err" >&2; fi
  done
done
if [ -L "$d/link.xlsx" ] && [ -p "$d/fifo.xlsx" ] && [ -L "$d/p-link/cost.svg" ] && [ -p "$d/p-fifo/cost.svg" ]; then ok; else bad "a link or FIFO was replaced"; fi
if [ "$(cat "$d/real.txt")" = precious ]; then ok; else bad "the file behind a link was written"; fi
if [ -z "$(ls -A "$d/p-link" | grep -v cost.svg)" ]; then ok; else bad "charts written beside a refused one"; fi

# No output replaces a file the run reads: the plan itself (also through a hard link) or a --data-dir file.
d=$tmp/inputs; mkdir -p "$d/overlay/models"
cp "$E" "$d/plan.toml"
cp "$src/data/models/llama-3-70b.toml" "$d/overlay/models/llama-3-70b.toml"
ln "$d/plan.toml" "$d/hard.xlsx"
for target in "$d/plan.toml" "$d/hard.xlsx" "$d/overlay/models/llama-3-70b.toml"; do
  [ "$xlsx" = 0 ] && break
  "$bin" plan "$d/plan.toml" --data-dir "$d/overlay" --xlsx "$target" --force >/dev/null 2>"$tmp/err"
  st=$?
  if [ "$st" -eq 2 ] && grep -qF "input" "$tmp/err"; then ok; else bad "--xlsx $target (an input) --force: exit $st"; sed 's/^/  | /' "$tmp/err" >&2; fi
done
if cmp -s "$E" "$d/plan.toml" && cmp -s "$src/data/models/llama-3-70b.toml" "$d/overlay/models/llama-3-70b.toml"; then ok; else bad "an input file was overwritten"; fi

# --html: one page, written with the other files of the set, never over an existing file without --force, not by a
# shard; the same page after a sweep (its first point) and from `plan merge`.
d=$tmp/html; mkdir -p "$d"
# Without the WebAssembly engine (INFRACALC_WEB_ENGINE set but empty) it has no script and says the what-if panel
# needs `make web`.
INFRACALC_WEB_ENGINE='' "$bin" plan "$E" --html "$d/r.html" --plot "$d/plots" >/dev/null 2>"$tmp/err"
if [ -s "$d/r.html" ] && [ -s "$d/plots/cost.svg" ]; then ok; else bad "--html with --plot: page or charts missing"; cat "$tmp/err" >&2; fi
if [ "$(grep -c '<svg' "$d/r.html")" -ge 5 ] && grep -q '</html>' "$d/r.html"; then ok; else bad "--html: the page lacks its charts or its end"; fi
if ! grep -qE ' (src|href)=|<script|@import|url\(' "$d/r.html"; then ok; else bad "--html: the page refers to something outside itself"; fi
if grep -q 'needs the WebAssembly engine: run <code>make web</code>' "$d/r.html" && ! grep -q 'id="what-if"' "$d/r.html"; then ok
else bad "--html without the engine: no line saying the what-if panel needs make web"; fi
# With an engine (INFRACALC_WEB_ENGINE names the folder `make web` builds; here a stand-in) the page embeds it, the
# plan and the panel, still referring to nothing outside itself; a folder without one is an error naming the variable.
mkdir -p "$tmp/engine"
echo 'var createInfracalcEngine = function () {};' >"$tmp/engine/infracalc_engine.js"
printf '\037\213stand-in' >"$tmp/engine/infracalc_engine.wasm.gz"
mkdir -p "$tmp/engine/site"
echo 'async function loadInfracalcEngine(id, options = {}) {}' >"$tmp/engine/site/engine_loader.js"
INFRACALC_WEB_ENGINE=$tmp/engine "$bin" plan "$E" --html "$d/w.html" >/dev/null 2>"$tmp/err"
if grep -q '<section id="what-if">' "$d/w.html" && grep -q 'dmFyIGNyZWF0ZUluZnJhY2FsY0VuZ2luZSA9IGZ1bmN0aW9uICgpIHt9Owo=' "$d/w.html" &&
   grep -q "\"loader\": \"$(base64 -w0 "$tmp/engine/site/engine_loader.js")\"" "$d/w.html" &&
   [ "$(grep -c '<script>' "$d/w.html")" -eq 1 ] && grep -q '<script type="application/gzip" id="infracalc-engine-wasm">' "$d/w.html" &&
   ! grep -qE ' (src|href)=|@import|url\(' "$d/w.html"; then ok
else bad "--html with INFRACALC_WEB_ENGINE: no what-if panel, or a reference outside the page"; cat "$tmp/err" >&2; fi
INFRACALC_WEB_ENGINE=$tmp/no-such-engine "$bin" plan "$E" --html "$d/n.html" >/dev/null 2>"$tmp/err"
st=$?
if [ "$st" -eq 2 ] && grep -q 'INFRACALC_WEB_ENGINE' "$tmp/err" && [ ! -e "$d/n.html" ]; then ok; else bad "INFRACALC_WEB_ENGINE naming no engine: exit $st"; fi
"$bin" plan "$E" --html "$d/r.html" >/dev/null 2>"$tmp/err"
st=$?
if [ "$st" -eq 2 ] && grep -q -- "--force" "$tmp/err"; then ok; else bad "--html over an existing page without --force: exit $st"; fi
"$bin" plan "$E" --sweep 'batch=8,16' --html "$d/s.html" >/dev/null 2>&1 && [ -s "$d/s.html" ] && ok || bad "--html after a sweep"
"$bin" plan "$E" --sweep 'batch=8,16' --shard 1/2 --html "$d/x.html" >/dev/null 2>"$tmp/err"
if [ $? -eq 2 ] && [ ! -e "$d/x.html" ]; then ok; else bad "--shard with --html was not refused"; fi

echo "plan file tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
