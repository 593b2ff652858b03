#!/usr/bin/env bash
# Shell tests of the built binary: exit codes, streams, JSON shape, colour, overlays, broken pipes.
# Usage: cli_test.sh INFRACALC JSON_CHECK
set -u
bin=$1
json_check=$2
# shellcheck source=../shell_env.sh
source "$(dirname "$0")/../shell_env.sh"

# expect_status STATUS -- command...: runs the command, keeps stdout/stderr in $tmp/out, $tmp/err.
expect_status() {
  local want=$1; shift; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -eq "$want" ]; then ok; else bad "exit $got (want $want): $*"; sed 's/^/  | /' "$tmp/err" >&2; fi
}
out_has() { if grep -qF -- "$1" "$tmp/out"; then ok; else bad "stdout lacks '$1'"; sed 's/^/  | /' "$tmp/out" | head -20 >&2; fi; }
err_has() { if grep -qF -- "$1" "$tmp/err"; then ok; else bad "stderr lacks '$1'"; sed 's/^/  | /' "$tmp/err" >&2; fi; }
out_empty() { if [ ! -s "$tmp/out" ]; then ok; else bad "stdout not empty"; fi; }
err_empty() { if [ ! -s "$tmp/err" ]; then ok; else bad "stderr not empty"; sed 's/^/  | /' "$tmp/err" >&2; fi; }
json_ok() { if "$json_check" <"$tmp/out"; then ok; else bad "stdout is not JSON"; fi; }

# Exit 0, results on stdout, nothing on stderr.
expect_status 0 -- "$bin" kv size --model llama-3-70b --tokens 8000
out_has "kv_total"; out_has "2.621 GB"; out_has "2.441 GiB"; err_empty
expect_status 0 -- "$bin" --version
out_has "infracalc "; out_has "data as of"
expect_status 0 -- "$bin" calc '140 GB / (3.35 TB/s)'
out_has "41.79 ms"
expect_status 0 -- "$bin" calc '700 W * 1 yr -> MWh'
out_has "6.136 MWh"
expect_status 0 -- "$bin" list
out_has "kv"

# JSON shape.
expect_status 0 -- "$bin" kv size --model llama-3-70b --tokens 8000 --json
json_ok; out_has '"schema_version": 1'; out_has '"kv_bytes_per_token": {"value": 327680, "unit": "B"}'
out_has '"kv_total": {"value": 2621440000, "unit": "B"}'; out_has '"from": "catalog"'; out_has '"as_of": "2024-04-18"'
expect_status 0 -- "$bin" calc '140 GB / (3.35 TB/s)' --json
json_ok; out_has '"result": {"value": 0.04179104477'
expect_status 0 -- "$bin" hw show h100-sxm --json
json_ok; out_has '"memory_bandwidth"'
expect_status 0 -- "$bin" verify kv --json --quick
json_ok; out_has '"failed": 0'
expect_status 0 -- "$bin" list --json
json_ok
expect_status 0 -- "$bin" kv size --model llama-3-70b --tokens 8000 --csv
out_has "kv_total,2621440000,B"
expect_status 0 -- "$bin" kv size --model llama-3-70b --tokens 8000 --format md
out_has "| kv_total |"

# Catalog views in every format (issue 20, item 4): CSV carries machine values in the unit the key names, Markdown
# the human ones; hw compare adds the derived rows people compare parts by.
expect_status 0 -- "$bin" hw show h100-sxm --csv
out_has "key,value,unit,as_of,basis,source,note"; out_has "memory_bandwidth,3.35e+12,B/s,2023-03-21,datasheet"
out_has "idle_power,70,W,2025-09-01,measured"; err_empty
expect_status 0 -- "$bin" hw show h100-sxm --format md
out_has "## h100-sxm"; out_has "| memory_bandwidth | 3.35 TB/s |"; out_has "|---|---|"
expect_status 0 -- "$bin" model show llama-3-70b --csv
out_has "layers,80,1"; out_has "derived.params_total,"
expect_status 0 -- "$bin" model show llama-3-70b --format md
out_has "| layers | 80 |"
expect_status 0 -- "$bin" data list --kind price --csv
out_has "id,kind,type,vendor,name,as_of"; out_has "h100-sxm-purchase,price,"
expect_status 0 -- "$bin" data list --kind price --format md
out_has "| id | kind | type | vendor | name | as_of |"; out_has "| h100-sxm-purchase | price |"
expect_status 0 -- "$bin" hw list --format md
out_has "| h100-sxm | accelerator |"
expect_status 0 -- "$bin" hw compare h100-sxm mi300x --csv
out_has "field,unit,h100-sxm,mi300x"; out_has "memory_capacity,B,8e+10,1.92e+11"
# 989.4 TFLOP/s over 700 W; 3.35 TB/s over a $25,000 purchase; the price entry each figure comes from.
out_has "derived.bf16_dense_per_power,FLOP/J,1413428571428.5715,"; out_has "derived.bandwidth_per_price,B/(s*USD),1.34e+08,"
out_has "derived.price_entry,,h100-sxm-purchase,mi300x-purchase"
expect_status 0 -- "$bin" hw compare h100-sxm mi300x --format md
out_has "| field | h100-sxm | mi300x |"; out_has "| derived.memory_per_price | 3.2 MB/USD | 12.8 MB/USD |"
expect_status 0 -- "$bin" hw compare h100-sxm h200-sxm --json
json_ok; out_has '"derived": [{"id": "h100-sxm", "bf16_dense_per_power": {"value": 1413428571428.5715, "unit": "FLOP/J"}'
# Two parts: first / second for every quantity both give ("Trainium3 roughly doubles Trainium2": FP8 2.517 over
# 1.299 PFLOP/s, 1.938x; scale-up 2.56 over 1.28 TB/s).
expect_status 0 -- "$bin" hw compare trainium3 trainium2 --csv
out_has "field,unit,trainium3,trainium2,trainium3 / trainium2"; out_has "peak.fp8_dense,FLOP/s,2.517e+15,1.299e+15,1.9376443418013858"
out_has "scaleup_bandwidth,B/s,2.56e+12,1.28e+12,2"
expect_status 0 -- "$bin" hw compare trainium3 trainium2 --json
json_ok; out_has '"ratio": {"memory_capacity": 1.5, '
# A part without a purchase price has no per-price rows; "-" marks it in a comparison.
expect_status 0 -- "$bin" hw compare h100-sxm h200-sxm
out_has "derived.purchase_price"; out_has '$25k'
# Help wraps to the terminal width ($COLUMNS when stdout is not a terminal), long choice lists at their bars; help
# COMMAND is COMMAND --help (issue 20, item 10).
expect_status 0 -- env COLUMNS=60 "$bin" network energy --help
if awk 'length($0) > 60 { bad = 1 } END { exit bad }' "$tmp/out"; then ok; else bad "help wider than COLUMNS=60: $(awk 'length($0) > 60' "$tmp/out" | head -2)"; fi
out_has "energy per bit = power / rate"
expect_status 0 -- env COLUMNS=60 "$bin" kv size --help
if awk 'length($0) > 60 { bad = 1 } END { exit bad }' "$tmp/out"; then ok; else bad "kv size help wider than 60: $(awk 'length($0) > 60' "$tmp/out" | head -2)"; fi
out_has "fp8-e4m3|"
expect_status 0 -- "$bin" help plan
out_has "usage: infracalc plan FILE.toml"
expect_status 2 -- "$bin" help plna
err_has "did you mean 'plan'?"
# verify says what each check compared and by which tolerance it passed.
expect_status 0 -- "$bin" verify kv formats --quick
out_has "(exact agreement required: met)"; out_has "(within the tolerance"
if grep -q "(tol " "$tmp/out"; then bad "verify still prints '(tol ...)'"; else ok; fi
# Progress (issue 20, item 11): a bar on stderr when it is a terminal (script(1) gives the command one), nothing in a
# pipe; INFRACALC_PROGRESS_DELAY=0 draws it at once instead of after a second.
if command -v script >/dev/null; then
  INFRACALC_PROGRESS_DELAY=0 script -qfec "'$bin' verify kv formats --quick >/dev/null" /dev/null >"$tmp/tty" 2>&1
  if grep -aq "verify \[" "$tmp/tty" && grep -aq "kv " "$tmp/tty"; then ok; else bad "no progress bar on a terminal: $(head -c 200 "$tmp/tty")"; fi
fi
INFRACALC_PROGRESS_DELAY=0 "$bin" verify kv formats --quick >/dev/null 2>"$tmp/err"
if [ -s "$tmp/err" ]; then bad "progress written to a stderr that is not a terminal: $(head -c 200 "$tmp/err")"; else ok; fi
# A long calculator run (serve simulate) draws the same bar from the calculator's progress sink, on a terminal only.
if command -v script >/dev/null; then
  INFRACALC_PROGRESS_DELAY=0 script -qfec "'$bin' serve simulate --count 64 --prompt-tokens 100 --output-tokens 200 --step-time 20ms --max-batch 16 >/dev/null" /dev/null >"$tmp/tty" 2>&1
  if grep -aq "serve simulate \[" "$tmp/tty" && grep -aq "/64 " "$tmp/tty"; then ok; else bad "no serve simulate progress on a terminal: $(head -c 200 "$tmp/tty")"; fi
  # JSON output keeps stderr clean even on a terminal.
  INFRACALC_PROGRESS_DELAY=0 script -qfec "'$bin' serve simulate --count 64 --prompt-tokens 100 --output-tokens 200 --step-time 20ms --max-batch 16 --json >/dev/null" /dev/null >"$tmp/tty" 2>&1
  if grep -aq "serve simulate" "$tmp/tty"; then bad "progress drawn for --json: $(head -c 200 "$tmp/tty")"; else ok; fi
fi
INFRACALC_PROGRESS_DELAY=0 "$bin" serve simulate --count 64 --prompt-tokens 100 --output-tokens 200 --step-time 20ms --max-batch 16 --json >/dev/null 2>"$tmp/err"
if [ -s "$tmp/err" ]; then bad "serve simulate progress written to a stderr that is not a terminal: $(head -c 200 "$tmp/err")"; else ok; fi
# Notes quote numbers with the run's --digits and --binary (issue 20, item 9): the same note at 2 and 6 digits, in GiB
# with --binary, and a batch record's notes with the options its command line gave.
expect_status 0 -- "$bin" fit weights --model llama-3-70b --gpu h100-sxm --digits 2
out_has "min_devices = ceil(141 GB / 86 GB)"
expect_status 0 -- "$bin" fit weights --model llama-3-70b --gpu h100-sxm --digits 6
out_has "min_devices = ceil(141.107 GB / 85.5208 GB)"
expect_status 0 -- "$bin" fit weights --model llama-3-70b --gpu h100-sxm --binary
out_has "min_devices = ceil(131.4 GiB / 79.65 GiB)"
echo '{"plugin": "fit", "calculator": "weights", "inputs": {"model": "llama-3-70b", "gpu": "h100-sxm"}}' >"$tmp/notes.jsonl"
expect_status 0 -- "$bin" batch "$tmp/notes.jsonl" --digits 2 --binary
out_has "min_devices = ceil(131 GiB / 80 GiB)"
# A year in a data file is a label: an overlay's `launch = 2020` shows as 2020, not 2,020 (issue 20, item 9).
mkdir -p "$tmp/year/accelerators"
sed 's/^launch = .*/launch = 2020/' "$(dirname "$0")/../../data/accelerators/h100-sxm.toml" >"$tmp/year/accelerators/h100-sxm.toml"
expect_status 0 -- "$bin" hw show h100-sxm --data-dir "$tmp/year"
if grep -qE "^  launch +2020 " "$tmp/out"; then ok; else bad "launch year: $(grep launch "$tmp/out")"; fi
# A key that names a unit carries its value in it: energy per bit in J/bit, a format's bits in bit.
expect_status 0 -- "$bin" network energy --power 15W --rate 800Gb/s --json
out_has '"energy_per_bit": {"value": 1.875e-11, "unit": "J/bit"}'
expect_status 0 -- "$bin" formats info --dtype fp8 --csv
out_has "bits,8,bit"

# Exit 1: evaluated, but a requested check failed.
expect_status 1 -- "$bin" kv size --model llama-3-70b --tokens 128000 --budget 40GB --require-fit
out_has "fits: no"
expect_status 0 -- "$bin" kv size --model llama-3-70b --tokens 8000 --budget 40GB --require-fit
out_has "fits: yes"

# Exit 2: usage, unit, input and data errors, on stderr with a hint, nothing on stdout.
expect_status 2 -- "$bin" calc '3 W + 2 GB'
err_has "a power"; err_has "an amount of data"; out_empty
expect_status 2 -- "$bin" kv size --model llama-3-70b --tokens 8000 --tokns 3
err_has "did you mean '--tokens'"; out_empty
expect_status 2 -- "$bin" kv sise
err_has "did you mean 'size'"
expect_status 2 -- "$bin" kvv size
err_has "did you mean 'kv'"
expect_status 2 -- "$bin" hw show h100
err_has "did you mean"; err_has "'h100-sxm'"
expect_status 2 -- "$bin" kv size --layers 80 --kv-heads 8 --head-dim 128 --tokens 5GB
err_has "--tokens: expected a token count"
expect_status 2 -- "$bin" kv size --layers 80 --kv-heads 8 --head-dim 128 --tokens 8000 --digits 0
err_has "--digits"
expect_status 2 -- "$bin" kv size --layers 80 --kv-heads 8 --head-dim 128 --tokens 8000 --color sometimes
err_has "--color"
expect_status 2 -- "$bin" kv size --layers 80 --kv-heads 8 --head-dim 128 --tokens 8000 --tokens
err_has "error:"
expect_status 2 -- "$bin"
expect_status 2 -- "$bin" calc '1 KB'
err_has "kB"

# Colour: never on a pipe by default, on request with --color always; NO_COLOR honoured on a terminal.
expect_status 0 -- "$bin" kv size --model llama-3-70b --tokens 8000
if grep -q $'\x1b\[' "$tmp/out"; then bad "colour on a pipe"; else ok; fi
expect_status 0 -- "$bin" kv size --model llama-3-70b --tokens 8000 --color always
if grep -q $'\x1b\[' "$tmp/out"; then ok; else bad "no colour with --color always"; fi
if command -v script >/dev/null 2>&1; then
  script -qec "$bin kv size --model llama-3-70b --tokens 8000" /dev/null >"$tmp/tty" 2>&1
  if grep -q $'\x1b\[' "$tmp/tty"; then ok; else bad "no colour on a terminal"; fi
  NO_COLOR=1 script -qec "$bin kv size --model llama-3-70b --tokens 8000" /dev/null >"$tmp/tty" 2>&1
  if grep -q $'\x1b\[' "$tmp/tty"; then bad "colour despite NO_COLOR"; else ok; fi
fi

# Overlay data directory: same id wins, and the output says so; --data-dir and INFRACALC_DATA.
mkdir -p "$tmp/overlay/models"
cat >"$tmp/overlay/models/llama-3-70b.toml" <<'TOML'
id = "llama-3-70b"
name = "Llama 3 70B, our variant"
kind = "model"
layers = 40
hidden_size = 8192
attention_heads = 64
kv_heads = 8
head_dim = 128
params_total = 35e9

[meta]
as_of = 2025-01-01
sources = ["our own experiment"]
TOML
expect_status 0 -- "$bin" kv size --model llama-3-70b --tokens 8000 --data-dir "$tmp/overlay" --json
out_has '"kv_bytes_per_token": {"value": 163840'; out_has '"overlay": true'; out_has "overlay in effect"
INFRACALC_DATA="$tmp/overlay" expect_status 0 -- "$bin" kv size --model llama-3-70b --tokens 8000 --json
out_has '"kv_bytes_per_token": {"value": 163840'
expect_status 0 -- "$bin" model list --data-dir "$tmp/overlay"
out_has "[overlay]"
printf 'id = "bad-unit"\nname = "x"\nkind = "accelerator"\nvendor = "x"\nmemory_capacity = "80 KB"\nmemory_bandwidth = "1 TB/s"\n[meta]\nas_of = 2025-01-01\nsources = ["x"]\n' >"$tmp/overlay/bad-unit.toml"
expect_status 2 -- "$bin" data check --data-dir "$tmp/overlay"
err_has "bad-unit.toml:5:"

# A closed pipe is not an error.
"$bin" completions bash 2>"$tmp/err" | head -c 10 >/dev/null
status=${PIPESTATUS[0]}
if [ "$status" -eq 0 ]; then ok; else bad "broken pipe gave exit $status"; fi
err_empty

# The binary cannot reach the network or run programs: it imports no socket, resolver, exec, spawn, system or
# popen symbol (dlopen is there for OpenBLAS, opened by its build-time path in the peak probe). fork is there
# for a sweep's worker processes (plan --jobs): copies of this process, which cannot become another program.
if command -v nm >/dev/null 2>&1; then
  if nm -D --undefined-only "$bin" | grep -wqE 'socket|connect|getaddrinfo|gethostbyname|execv|execve|execvp|execvpe|execl|execlp|execle|fexecve|system|popen|vfork|posix_spawn|posix_spawnp'; then
    bad "the binary imports a network or program-running function: $(nm -D --undefined-only "$bin" | grep -wE 'socket|connect|getaddrinfo|exec[a-z]*|system|popen|vfork|posix_spawn' | tr -s ' ' | tr '\n' ' ')"
  else ok; fi
fi

# batch with stderr on the same pipe: every line is a whole record or a whole message (stdout is flushed at
# record boundaries before an error is written), and the exit status says a record failed.
for i in $(seq 1 60); do
  if [ $((i % 7)) -eq 0 ]; then echo '{"plugin":"kv","calculator":"size","inputs":{"model":"llama-3-70b","tokens":"70B"}}'
  else echo '{"plugin":"kv","calculator":"size","inputs":{"model":"llama-3-70b","tokens":"'"$((i * 1000))"'"}}'; fi
done >"$tmp/mixed.jsonl"
"$bin" batch "$tmp/mixed.jsonl" >"$tmp/merged" 2>&1
status=$?
if [ "$status" -eq 1 ]; then ok; else bad "batch with failed records gave exit $status (want 1)"; fi
torn=0
while IFS= read -r line; do
  case $line in
    "error: record "* | "batch: "*) ;;
    *) printf '%s' "$line" | "$json_check" >/dev/null 2>&1 || torn=$((torn + 1)) ;;
  esac
done <"$tmp/merged"
if [ "$torn" -eq 0 ] && [ "$(wc -l <"$tmp/merged")" -eq 69 ]; then ok; else bad "batch 2>&1: $torn torn lines, $(wc -l <"$tmp/merged") lines (want 60 records + 8 errors + 1 summary)"; fi

# Issue 24, item 3: batch keeps what it derives from a model, a default or a citation between records; a mixed batch
# (several models, repeated, overridden, failing) writes what each record gives run alone, with and without --as-of.
printf '%s\n' \
  '{"plugin":"kv","calculator":"size","inputs":{"model":"llama-3-70b","tokens":"8000","batch":"4"}}' \
  '{"plugin":"kv","calculator":"size","inputs":{"model":"deepseek-v3","tokens":"32k","tp":"8"}}' \
  '{"plugin":"kv","calculator":"size","inputs":{"model":"gemma-3-27b","tokens":"100k","dtype":"int8","kv-scales":"group"}}' \
  '{"plugin":"kv","calculator":"size","inputs":{"model":"llama-3-70b","tokens":"70B"}}' \
  '{"plugin":"kv","calculator":"size","inputs":{"model":"jamba-v0.1","tokens":"256k","pp":"4"}}' \
  '{"plugin":"kv","calculator":"size","inputs":{"model":"llama-3-70b","tokens":"1000","layers":"40","kv_heads":"16"}}' \
  '{"plugin":"kv","calculator":"size","inputs":{"model":"no-such-model","tokens":"1000"}}' \
  '{"plugin":"kv","calculator":"size","inputs":{"model":"gemma-3-27b","tokens":"1000","budget":"1 GB"}, "id": "g"}' \
  '{"plugin":"decode","calculator":"ceiling","inputs":{"model":"llama-3-70b","gpu":"h100-sxm","batch":"8","tokens":"8000"}}' \
  '{"plugin":"kv","calculator":"size","inputs":{"model":"deepseek-v3","tokens":"1000","dtype":"fp8"}}' \
  '{"plugin":"kv","calculator":"size","inputs":{"model":"llama-3-70b","tokens":"8000","batch":"4"}}' \
  '{"plugin":"cost","calculator":"token","inputs":{"gpu_hour":"$2.20/h","throughput":"1000 tok/s"}}' \
  '{"plugin":"kv","calculator":"size","inputs":{"model":"llama-3-70b","tokens":"8000","batch":"0"}}' \
  '{"plugin":"kv","calculator":"size","inputs":{"model":"gemma-3-27b","tokens":"100k","dtype":"int8","kv-scales":"group"}}' \
  >"$tmp/models.jsonl"
for as_of in "" "--as-of 2024-01-01"; do
  # shellcheck disable=SC2086
  "$bin" batch "$tmp/models.jsonl" $as_of >"$tmp/whole" 2>/dev/null
  : >"$tmp/alone"
  n=0
  while IFS= read -r line; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    printf '%s\n' "$line" | "$bin" batch - $as_of 2>/dev/null | sed "s/^{\"schema_version\": 1, \"record\": 1,/{\"schema_version\": 1, \"record\": $n,/" >>"$tmp/alone"
  done <"$tmp/models.jsonl"
  if [ "$(wc -l <"$tmp/whole")" -eq 14 ] && cmp -s "$tmp/whole" "$tmp/alone"; then ok
  else bad "batch $as_of differs from its records run alone: $(diff "$tmp/whole" "$tmp/alone" | head -c 600)"; fi
done

# Help lists every input with dimension, default and example, and every output with its unit.
expect_status 0 -- "$bin" kv size --help
out_has "--tokens"; out_has "default fp16"; out_has "kv_total"; out_has "e.g. 128k"

# validate: the shipped corpus, a user's file in the seed format, and bad input.
fixtures="$(dirname "$0")/../fixtures"
expect_status 0 -- "$bin" validate --kind inference --json
json_ok; out_has '"median_abs_error": {"value": '; out_has '"p90_abs_error": {"value": '; err_empty
expect_status 0 -- "$bin" validate --file "$fixtures/measured/seed-format.toml"
out_has "user-trtllm-llama31-70b-h100-tp2-1000-1000"; out_has "infracalc serve capacity --model llama-3.1-70b"
out_has 'accelerator "not-a-gpu" is not in the catalog'
expect_status 2 -- "$bin" validate --kind bogus
err_has "--kind: expected inference, training or power"
expect_status 2 -- "$bin" validate --file "$tmp/no-such-file.toml"
expect_status 2 -- "$bin" calibrate
err_has "calibrate --published"
# Expected figures sit beside the ceiling, below it.
expect_status 0 -- "$bin" decode ceiling --model llama-3.1-70b --gpu h100-sxm --batch 32 --tokens 2k --json
out_has '"expected_tokens_per_second"'; out_has '"tokens_per_second"'
expect_status 0 -- "$bin" serve capacity --model llama-3.1-70b --gpu h100-sxm --tp 2 --gpus 2 --dtype fp8 --kv-dtype fp8 --prompt-tokens 2048 --tokens-per-answer 128 --ceiling steady-state
out_has "expected_pod_tokens_per_second"; out_has "within ±"

# Issue 20, item 3: every batch result carries its record number; --fields trims table, JSON, CSV and batch lines.
printf '%s\n' '{"plugin":"kv","calculator":"size","inputs":{"model":"llama-3-70b","tokens":"8000"}}' '' \
  '{"plugin":"kv","calculator":"size","inputs":{"model":"llama-3-70b","tokens":"1000"}, "id": "b"}' >"$tmp/two.jsonl"
expect_status 0 -- "$bin" batch "$tmp/two.jsonl"
out_has '{"schema_version": 1, "record": 1, "plugin": "kv"'; out_has '{"schema_version": 1, "record": 3, "plugin": "kv"'
out_has '"id": "b"}'
expect_status 0 -- "$bin" batch "$tmp/two.jsonl" --fields kv_total
out_has '"results": {"kv_total": {"value": 2621440000, "unit": "B"}}'; out_has '"record": 3'
if grep -q kv_bytes_per_token "$tmp/out"; then bad "batch --fields kept kv_bytes_per_token"; else ok; fi
expect_status 2 -- "$bin" batch "$tmp/two.jsonl" --fields kv_totl
err_has "did you mean"; err_has "kv_total"; out_empty
expect_status 0 -- "$bin" kv size --model llama-3-70b --tokens 8000 --json --fields kv_total,kv_bytes_per_token
json_ok; out_has '"results": {"kv_bytes_per_token": {"value": 327680, "unit": "B"}, "kv_total": {"value": 2621440000, "unit": "B"}}'
out_has '"tables": {}'
expect_status 0 -- "$bin" kv size --model llama-3-70b --tokens 8000 --csv --fields kv_total
if [ "$(cat "$tmp/out")" = "$(printf 'key,value,unit\nkv_total,2621440000,B')" ]; then ok; else bad "--csv --fields: $(cat "$tmp/out")"; fi
expect_status 0 -- "$bin" kv size --model llama-3-70b --tokens 8000 --fields kv_total
out_has "kv_total"; if grep -q kv_bytes_per_token "$tmp/out"; then bad "table --fields kept kv_bytes_per_token"; else ok; fi
expect_status 2 -- "$bin" kv size --model llama-3-70b --tokens 8000 --fields kv_totl --json
err_has "did you mean 'kv_total'"; out_empty

# Issue 20, item 5: output options anywhere on the line; a repeated option keeps the last value; shared aliases.
expect_status 0 -- "$bin" --json kv size --model llama-3-8b --tokens 8000
json_ok; out_has '"plugin": "kv"'
expect_status 0 -- "$bin" kv --csv size --model llama-3-70b --tokens 8000
out_has "kv_total,2621440000,B"
expect_status 0 -- "$bin" --digits=3 --format json list
json_ok
expect_status 0 -- "$bin" --json calc '1 GB / (1 GB/s)'
json_ok; out_has '"result": {"value": 1'
expect_status 0 -- "$bin" kv size --model llama-3-70b --tokens 1000 --tokens 8000 --digits 3 --digits 6
out_has "2.62144 GB"; err_empty
expect_status 0 -- "$bin" kv size --model llama-3-70b --tokens 8000 --json --json
json_ok; err_empty
expect_status 0 -- "$bin" decode ceiling --model llama-3-70b --gpu h100-sxm --tokens 8k --tokens 16k --json
out_has '"tokens": {"value": 16000'; err_empty
"$bin" cost token --rental h100-sxm-rental --tier committed --throughput 3690tok/s --gpus 2 --utilisation 60% --json >"$tmp/uk" 2>&1
expect_status 0 -- "$bin" cost token --rental h100-sxm-rental --tier committed --throughput 3690tok/s --gpus 2 --utilization 60% --json
if cmp -s "$tmp/out" "$tmp/uk"; then ok; else bad "--utilization differs from --utilisation"; fi
expect_status 2 -- "$bin" cost token --rental h100-sxm-rental --tier committed --throughput 3690tok/s --gpus 2 --utilizatin 60%
err_has "did you mean '--utilization'"
expect_status 0 -- "$bin" cost token --help
out_has "also --utilization"
expect_status 0 -- "$bin" cluster collective --op all-reduce --size 1GB --ranks 8 --bandwidth 400Gb/s --json
json_ok; out_has '"op": {"value": "allreduce"'
expect_status 2 -- "$bin" formats error --bytes 4096
err_has "unknown option '--bytes'"
echo '{"plugin":"cost","calculator":"token","inputs":{"rental":"h100-sxm-rental","tier":"committed","throughput":"3690tok/s","gpus":2,"utilization":"60%"}}' >"$tmp/alias.jsonl"
expect_status 0 -- "$bin" batch "$tmp/alias.jsonl"
out_has '"utilisation": {"value": 0.6'

# Issue 20, item 3: plan records in batch, the plan file confined to --files-from like any named file.
mkdir -p "$tmp/plans" && cp "$(dirname "$0")/../../examples/llama3-70b-h100.toml" "$tmp/plans/p.toml"
printf '%s\n' '{"plan": "p.toml", "id": "a"}' '{"plan": "p.toml", "set": {"workload.rate": "50/s"}}' >"$tmp/plans.jsonl"
expect_status 0 -- "$bin" batch "$tmp/plans.jsonl" --files-from "$tmp/plans"
out_has '{"schema_version": 1, "record": 1, "kind": "plan"'; out_has '"id": "a"}'; out_has '"record": 2, "kind": "plan"'
if [ "$(wc -l <"$tmp/out")" -eq 2 ]; then ok; else bad "plan records: $(wc -l <"$tmp/out") lines (want 2)"; fi
expect_status 1 -- "$bin" batch "$tmp/plans.jsonl"
out_has '"record": 2, "error": '; err_has "--files-from"
echo '{"plan": "p.toml", "set": {"workload.rat": "50/s"}}' | "$bin" batch - --files-from "$tmp/plans" >"$tmp/out" 2>"$tmp/err"
out_has '"record": 1, "error": '; err_has "did you mean 'workload.rate'"

# Issue 22, item 2: an imported model is named by its config's _name_or_path; a config.json without one is named
# after its folder (never "config"), with a note.
fixtures="$(cd "$(dirname "$0")/../fixtures/hf" && pwd)"
mkdir -p "$tmp/import/openai-gpt2" && cp "$fixtures/gpt2.json" "$tmp/import/openai-gpt2/config.json"
(cd "$tmp/import/openai-gpt2" && "$bin" model import config.json) >"$tmp/out" 2>"$tmp/err"
out_has 'wrote openai-gpt2.toml (model openai-gpt2)'; out_has 'comes from the file'"'"'s name'
if [ -f "$tmp/import/openai-gpt2/openai-gpt2.toml" ]; then ok; else bad "model import did not write openai-gpt2.toml"; fi
mkdir -p "$tmp/import/phi" && cp "$fixtures/phi-3-mini-4k-instruct.json" "$tmp/import/phi/config.json"
(cd "$tmp/import/phi" && "$bin" model import config.json --json) >"$tmp/out" 2>"$tmp/err"
out_has '"id": "phi-3-mini-4k-instruct"'

# Issue 22, item 5: decode timeline --plot FILE.svg draws the result's timeline; the file is checked before the run,
# never replaced without --force, and a calculator without a chart has no --plot.
expect_status 0 -- "$bin" decode timeline --model llama-3-70b --gpu h100-sxm --link nvlink-4 --plot "$tmp/tl.svg"
out_has "TP4xPP2"; err_empty
if [ -s "$tmp/tl.svg" ] && grep -q '<g class="gpu" data-layout="TP4xPP2" data-gpu="7">' "$tmp/tl.svg"; then ok; else bad "no TP4xPP2 GPU 7 row in tl.svg"; fi
if grep -q 'tokens/s per sequence' "$tmp/tl.svg"; then ok; else bad "tl.svg lacks the tokens per sequence per second"; fi
cp "$tmp/tl.svg" "$tmp/tl.old"
expect_status 2 -- "$bin" decode timeline --model llama-3-70b --gpu h100-sxm --layouts TP8 --plot "$tmp/tl.svg"
err_has "--plot $tmp/tl.svg already exists"; out_empty
if cmp -s "$tmp/tl.svg" "$tmp/tl.old"; then ok; else bad "tl.svg replaced without --force"; fi
expect_status 0 -- "$bin" decode timeline --model llama-3-70b --gpu h100-sxm --layouts TP8 --plot "$tmp/tl.svg" --force
if grep -q 'data-layout="DP8"' "$tmp/tl.svg"; then bad "--force did not replace tl.svg"; else ok; fi
expect_status 2 -- "$bin" decode timeline --model llama-3-70b --gpu h100-sxm --plot "$tmp"
err_has "is a directory"
expect_status 2 -- "$bin" kv size --model llama-3-70b --tokens 8000 --plot "$tmp/kv.svg"
err_has "unknown option '--plot'"
expect_status 0 -- "$bin" decode timeline --help
out_has "--plot FILE.svg"

# Issue 22, item 10: availability is a gate before the ranking. Trainium3 (2025-12) and the B300 (2025-Q3, counted
# from September) are not available by 2025-06 and are listed as dropped; the MI355X (2025-06) is.
expect_status 0 -- "$bin" hw list --kind accelerator --available-by 2025-06 --sort bf16
out_has "available by 2025-06, ranked by peak.bf16_dense (largest first)"; out_has "not available by 2025-06"
out_has "not available by 2025-06: trainium3 (2025-12: first available after 2025-06)"; out_has "b300 (2025-Q3: "; out_has "mi355x"
err_empty
if grep -q "^  mi355x" "$tmp/out" && ! grep -q "^  trainium3 .*Trainium3" "$tmp/out"; then ok; else bad "gate: mi355x kept, trainium3 dropped"; fi
expect_status 0 -- "$bin" hw list --available-by 2025-06 --sort bf16 --json
json_ok; out_has '"excluded": [{"id": "'; out_has '"why": "first available after 2025-06"'
expect_status 0 -- "$bin" hw list --kind accelerator --available-by 2025-06 --csv
err_has "not available by 2025-06: "
expect_status 2 -- "$bin" hw list --available-by June
err_has '--available-by: "June" is not a month'
expect_status 2 -- "$bin" hw list --sort bf17
err_has "--sort: no listed part has a field"
expect_status 2 -- "$bin" hw show h100-sxm --sort bf16
err_has "belong to hw list"

# Several problems in a plan: one "error: " line each, the count last; a line break inside a value stays escaped.
plans="$(dirname "$0")/../bad-inputs/files/plan"
expect_status 2 -- "$bin" plan "$plans/unknown-ids.toml"
if [ "$(grep -c '^error: ' "$tmp/err")" -eq 6 ]; then ok; else bad "want 6 error lines"; sed 's/^/  | /' "$tmp/err" >&2; fi
if grep -qF 'x0A' "$tmp/err"; then bad "a line break between problems was escaped"; else ok; fi
err_has "error: 5 problems in the plan"
printf '[model]\nid = "bad\\nid"\n[hardware]\nsystem = "dgx-h10"\n[workload]\ntype = "serve"\n' > "$tmp/two.toml"
expect_status 2 -- "$bin" plan "$tmp/two.toml"
err_has 'bad\x0Aid'
if grep -q '^id' "$tmp/err"; then bad "a line break from the file reached the terminal"; else ok; fi

echo "cli tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
