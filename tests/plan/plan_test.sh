#!/usr/bin/env bash
# Shell tests of `infracalc plan`: every example runs, every output format, sweeps, the Pareto front, --set,
# validation (exit 2 with file:line:col), files that are never overwritten without --force, and make demo.
# Usage: plan_test.sh INFRACALC JSON_CHECK SOURCE_DIR
set -u
bin=$1
json_check=$2
src=$3
ex=$src/examples
# shellcheck source=../shell_env.sh
source "$(dirname "$0")/../shell_env.sh"

expect_status() {
  local want=$1; shift; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -eq "$want" ]; then ok; else bad "exit $got (want $want): $*"; sed 's/^/  | /' "$tmp/err" | head -20 >&2; fi
}
out_has() { if grep -qF -- "$1" "$tmp/out"; then ok; else bad "stdout lacks '$1'"; head -30 "$tmp/out" | sed 's/^/  | /' >&2; fi; }
out_has_re() { if grep -qE -- "$1" "$tmp/out"; then ok; else bad "stdout matches no line of /$1/"; head -30 "$tmp/out" | sed 's/^/  | /' >&2; fi; }
err_has() { if grep -qF -- "$1" "$tmp/err"; then ok; else bad "stderr lacks '$1'"; sed 's/^/  | /' "$tmp/err" >&2; fi; }
out_lines() { local n; n=$(wc -l <"$tmp/out"); if [ "$n" -eq "$1" ]; then ok; else bad "stdout has $n lines, want $1"; fi; }
err_empty() { if [ ! -s "$tmp/err" ]; then ok; else bad "stderr not empty"; sed 's/^/  | /' "$tmp/err" >&2; fi; }
json_ok() { if "$json_check" "$@" <"$tmp/out"; then ok; else bad "stdout is not JSON"; fi; }

# Every example runs and its worksheet has the lines the issue names.
for f in "$ex"/llama3-70b-h100.toml "$ex"/llama3-70b-h200-fp8.toml "$ex"/deepseek-v3-gb200-nvl72.toml; do
  expect_status 0 -- "$bin" plan "$f"
  for key in weights kv_bytes_per_token gpus decode_ceiling tokens_per_second requests_per_second rack_power coolant_flow_per_rack owner_cost cost_per_mtok; do
    out_has "  $key "
  done
  err_empty
  expect_status 0 -- "$bin" plan "$f" --json
  json_ok
  out_has '"provenance": [{"id": '
  out_has '"cross_checks": [{"line": '
  expect_status 0 -- "$bin" plan "$f" --format md
  out_has "### Summary"; out_has "**Sources**"; out_has "| cost_per_mtok |"
  expect_status 0 -- "$bin" plan "$f" --csv
  out_has "key,value,unit,sheet,kind,how"
  out_has_re "^cost_per_mtok,[^,]*,USD/Mtok,cost,"
done
expect_status 0 -- "$bin" plan "$ex/llama3-405b-train-16k-h100.toml"
out_has "training_cost"; out_has "run_time"; out_has "deadline: yes"
expect_status 0 -- "$bin" plan "$ex/site-100mw.toml" --csv
out_lines 5
out_has "variant,site.grid,gpus,racks,it_power (W)"
out_has "liquid,us-virginia,"

# The serve step runs at a nominal 1/s target (memoized across rates): its replica note describes that
# nominal rate, not the plan's, and is left out of the plan's notes.
expect_status 0 -- "$bin" plan "$ex/llama3-70b-h100.toml"
out_has "serve (serve capacity): replica simulated at saturation"
if grep -qF "ceil(1 Hz" "$tmp/out"; then bad "plan notes describe the serve step's nominal 1/s target"; else ok; fi

# --set overrides, and the worksheet says where each input came from.
expect_status 0 -- "$bin" plan "$ex/llama3-70b-h100.toml" --set workload.rate=50/s
out_has "rate                  50 req/s"
out_has "given (--set workload.rate)"
expect_status 2 -- "$bin" plan "$ex/llama3-70b-h100.toml" --set workload.rat=50/s
err_has "did you mean 'workload.rate'?"

# Sweeps: one row per point, CSV and JSON Lines; the Pareto front keeps a subset. Systems are priced as
# themselves: from the catalog's purchase entries here (the accelerator alone), without the rental comparison
# (left out here).
priced=(--set money.capex_per_gpu= --set money.purchase=h100-sxm-purchase --set money.rental=)
expect_status 0 -- "$bin" plan "$ex/llama3-70b-h100.toml" "${priced[@]}" --sweep hardware.system=dgx-h100,dgx-b200 --sweep batch=1,8,64 --csv
out_lines 7
out_has "hardware.system,workload.batch,"
err_has "note: --sweep hardware.system=dgx-b200: priced at the catalog's b200-purchase"
expect_status 0 -- "$bin" plan "$ex/llama3-70b-h100.toml" "${priced[@]}" --sweep hardware.system=dgx-h100,dgx-b200 --sweep batch=1,8,64 --json
out_lines 6
json_ok --lines
out_has '"cost_per_mtok": {"value": '
expect_status 0 -- "$bin" plan "$ex/llama3-70b-h100.toml" "${priced[@]}" --sweep hardware.system=dgx-h100,dgx-b200 --sweep batch=1,8,64 --pareto cost_per_mtok,tpot --csv
n=$(wc -l <"$tmp/out")
if [ "$n" -ge 3 ] && [ "$n" -lt 7 ]; then ok; else bad "pareto front has $n lines"; fi
# Each row is priced as the single plan of its system (issue 19: the B200 rows had the H100's capex and rental).
expect_status 0 -- "$bin" plan "$ex/llama3-70b-h100.toml" --set money.rental= --sweep hardware.system=dgx-h100,dgx-b200 --columns capex_per_gpu,cost_per_mtok --csv
swept_b200=$(awk -F, '$1 == "dgx-b200" { print $2 "," $3 }' "$tmp/out")
swept_h100=$(awk -F, '$1 == "dgx-h100" { print $2 "," $3 }' "$tmp/out")
expect_status 0 -- "$bin" plan "$ex/llama3-70b-h100.toml" --set money.rental= --set hardware.system=dgx-b200 --set money.capex_per_gpu= --set money.purchase=b200-purchase --csv
single_b200=$(awk -F, '$1 == "capex_per_gpu" { c = $2 } $1 == "cost_per_mtok" { m = $2 } END { print c "," m }' "$tmp/out")
expect_status 0 -- "$bin" plan "$ex/llama3-70b-h100.toml" --set money.rental= --csv
single_h100=$(awk -F, '$1 == "capex_per_gpu" { c = $2 } $1 == "cost_per_mtok" { m = $2 } END { print c "," m }' "$tmp/out")
same_prices() {  # "capex,cost_per_mtok" pairs equal to 1e-12 (a sweep evaluates incrementally)
  awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, ","); m = split(b, y, ","); if (n != 2 || m != 2) exit 1
    for (i = 1; i <= 2; i++) { d = x[i] - y[i]; if (d < 0) d = -d; s = y[i] < 0 ? -y[i] : y[i]; if (y[i] == "" || d > 1e-12 * s) exit 1 } }'
}
if same_prices "$swept_b200" "$single_b200"; then ok; else bad "swept B200 row '$swept_b200' is not the B200 plan '$single_b200'"; fi
if same_prices "$swept_h100" "$single_h100"; then ok; else bad "swept H100 row '$swept_h100' is not the H100 plan '$single_h100'"; fi
if [ "$swept_b200" != "$swept_h100" ]; then ok; else bad "the B200 rows are priced as the H100's"; fi
# A swept system the catalog has no price for stops the plan: exit 2, nothing on stdout, the missing price named.
expect_status 2 -- "$bin" plan "$ex/llama3-70b-h100.toml" --sweep hardware.system=dgx-h100,hgx-b300 --csv
err_has "--sweep hardware.system=hgx-b300: no purchase price for hgx-b300 (b300)"
err_has "[[variant]] per system"
err_has "--data-dir"
if [ ! -s "$tmp/out" ]; then ok; else bad "stdout not empty on an unpriced sweep"; fi
expect_status 2 -- "$bin" plan "$ex/llama3-70b-h100.toml" --sweep hardware.system=dgx-h100,gb200-nvl72 --csv
err_has "--sweep hardware.system=gb200-nvl72: no on-demand rental price for gb200-nvl72 (gb200)"
err_has "--set money.rental="
# The price the hint asks for, given in a --data-dir overlay, prices the B300 rows.
mkdir -p "$tmp/overlay/prices"
cat >"$tmp/overlay/prices/b300-purchase-mine.toml" <<'TOML'
id = "b300-purchase-mine"
name = "B300 purchase price per accelerator (our quote)"
kind = "price"
item = "b300"
unit_of_sale = "accelerator"
[[purchase]]
as_of = 2025-01-01
value = "$31000"
source = "our quote"
basis = "estimate"
[meta]
as_of = 2025-01-01
sources = ["our quote"]
basis = "estimate"
TOML
expect_status 0 -- "$bin" plan "$ex/llama3-70b-h100.toml" --data-dir "$tmp/overlay" --set money.rental= --sweep hardware.system=dgx-h100,hgx-b300 --columns capex_per_gpu --csv
out_has "hgx-b300,31000,"
err_has "priced at the catalog's b300-purchase-mine"

# A sweep whose points fail checks exits 1, as the single plan does, and says on stderr how many failed.
expect_status 1 -- "$bin" plan "$ex/llama3-70b-h100.toml" --set workload.ttft=50ms --set workload.batch=8
expect_status 1 -- "$bin" plan "$ex/llama3-70b-h100.toml" --set workload.ttft=50ms --sweep batch=8,16 --csv
failed_rows=$(awk -F, 'NR > 1 && $(NF - 1) != "" { n++ } END { print n + 0 }' "$tmp/out")
rows=$(awk 'NR > 1 { n++ } END { print n + 0 }' "$tmp/out")
err_has "$failed_rows of $rows sweep points failed checks ("
err_has "ttft_target in $failed_rows"
if [ "$failed_rows" -gt 0 ]; then ok; else bad "no sweep row failed the 50 ms TTFT"; fi
expect_status 1 -- "$bin" plan "$ex/llama3-70b-h100.toml" --set workload.ttft=50ms --sweep batch=8,16 --pareto cost_per_mtok,tpot
err_has "sweep points failed checks"
expect_status 0 -- "$bin" plan "$ex/llama3-70b-h100.toml" --sweep batch=8,16 --csv
err_empty
expect_status 0 -- "$bin" plan "$ex/llama3-70b-h100.toml" --sweep workload.rate=1/s..100/s:50 --columns gpus,cost_per_mtok --stats --csv
out_lines 51
err_has "points/s"

# Validation: every problem at once, with file:line:col and a hint, exit 2, nothing on stdout.
cat >"$tmp/bad.toml" <<'TOML'
[model]
id = "llama-3-70"
[hardware]
gpu = "h100"
[workload]
type = "serve"
rate = "50 GB"
promt = 1000
TOML
expect_status 2 -- "$bin" plan "$tmp/bad.toml"
err_has "bad.toml:2:6: model.id: unknown model 'llama-3-70'; hint: did you mean 'llama-3-70b'?"
err_has "bad.toml:4:7: hardware.gpu: unknown accelerator 'h100'"
err_has "bad.toml:7:8: workload.rate: expected"
err_has "bad.toml:8:9: unknown key 'promt' in [workload]; hint: did you mean 'prompt'?"
err_has "missing the electricity price"
err_has "problems in the plan"
if [ ! -s "$tmp/out" ]; then ok; else bad "stdout not empty on a bad plan"; fi
expect_status 0 -- "$bin" plan "$ex/llama3-70b-h100.toml" --check
expect_status 2 -- "$bin" plan "$tmp/missing.toml"
err_has "cannot read"

# Files: a workbook and charts, never replacing a file without --force, never an input.
expect_status 0 -- "$bin" plan "$ex/llama3-70b-h100.toml" --xlsx "$tmp/plan.xlsx" --plot "$tmp/plots"
if [ -s "$tmp/plan.xlsx" ]; then ok; else bad "no workbook"; fi
for c in roofline memory cost rack-power occupancy; do if [ -s "$tmp/plots/$c.svg" ]; then ok; else bad "no $c.svg"; fi; done
expect_status 2 -- "$bin" plan "$ex/llama3-70b-h100.toml" --xlsx "$tmp/plan.xlsx"
err_has "exists"
expect_status 0 -- "$bin" plan "$ex/llama3-70b-h100.toml" --xlsx "$tmp/plan.xlsx" --force
cp "$ex/llama3-70b-h100.toml" "$tmp/in.toml"
expect_status 2 -- "$bin" plan "$tmp/in.toml" --xlsx "$tmp/in.toml" --force
if cmp -s "$tmp/in.toml" "$ex/llama3-70b-h100.toml"; then ok; else bad "the input file was overwritten"; fi

# csv_value KEY: the value of a plan's line or a calculator's output from $tmp/out written as CSV (key,value,unit,...).
csv_value() { awk -F, -v k="$1" '$1 == k { print $2; exit }' "$tmp/out"; }
# same_value WHAT A B: two numbers agree to 1e-9 (relative).
same_value() {
  if [ -n "$2" ] && [ -n "$3" ] && awk -v a="$2" -v b="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a); exit !(d <= 1e-9 * m) }'; then
    ok
  else
    bad "$1: $2 against $3"
  fi
}

# A fine-tuning plan (issue 22, item 1) runs `fit finetune` for its job: the worksheet's figures are the
# calculator's with the same inputs, its cost is the calculator's at the plan's owner cost per GPU-hour.
ft=$ex/llama3.1-70b-qlora-h100.toml
expect_status 0 -- "$bin" plan "$ft"
out_has "(finetune plan"; out_has "  trainable_params "; out_has "  finetune_cost "; out_has "fits: yes"
err_empty
expect_status 0 -- "$bin" plan "$ft" --json
json_ok
out_has '"workload": "finetune"'
expect_status 0 -- "$bin" plan "$ft" --csv
declare -A planned
for k in params trainable_params base_per_device state_per_device activations_per_device memory_per_device memory_headroom \
         min_devices training_flops gpu_time run_time finetune_cost owner_cost; do planned[$k]=$(csv_value "$k"); done
job=(--model llama-3.1-70b --gpu h100-sxm --method qlora --rank 16 --targets all --dataset-tokens 100M --epochs 3 --seq 4096
     --micro-batch 1 --devices 8)
expect_status 0 -- "$bin" fit finetune "${job[@]}" --gpu-hour "${planned[owner_cost]} USD/s" --csv
for pair in params:params trainable_params:trainable_params base_per_device:base_per_device state_per_device:state_per_device \
            activations_per_device:activations_per_device total_per_device:memory_per_device headroom:memory_headroom \
            min_devices:min_devices training_flops:training_flops gpu_time:gpu_time duration:run_time cost:finetune_cost; do
  same_value "fit finetune ${pair%%:*} against the plan's ${pair##*:}" "$(csv_value "${pair%%:*}")" "${planned[${pair##*:}]}"
done
expect_status 0 -- "$bin" fit finetune "${job[@]}"
out_has "fits: yes"
# A LoRA job that does not fit one device's memory: the plan's verdict is the calculator's, exit 1.
expect_status 1 -- "$bin" plan "$ft" --set finetune.method=lora --set hardware.gpus=1
out_has "fits: no"
expect_status 2 -- "$bin" plan "$ft" --set hardware.tp=8
err_has "hardware.tp"

# A site's climate (issue 22, item 9) gives the PUE through `cooling climate`'s model: a hot, humid site
# needs more than a cold one, each the annual PUE `cooling climate` reports for that site and plant.
for site in singapore-sg lulea-se; do
  expect_status 0 -- "$bin" plan "$ft" --set site.climate=$site --set site.climate_cooling=air --csv
  planned[$site]=$(csv_value pue)
  out_has_re "^pue,[^,]*,1,inputs,"
  expect_status 0 -- "$bin" cooling climate --site $site --cooling air --csv
  same_value "plan PUE against cooling climate at $site" "$(csv_value pue)" "${planned[$site]}"
  wue=$(csv_value wue)
  expect_status 0 -- "$bin" plan "$ft" --set site.climate=$site --set site.climate_cooling=air --csv
  same_value "plan WUE against cooling climate at $site" "$wue" "$(csv_value wue)"
done
if awk -v h="${planned[singapore-sg]}" -v c="${planned[lulea-se]}" 'BEGIN { exit !(h > c) }'; then ok; else
  bad "Singapore's PUE ${planned[singapore-sg]} is not above Lulea's ${planned[lulea-se]}"; fi
# A serving plan takes it too; a PUE given still wins, and the worksheet says which it used.
expect_status 0 -- "$bin" plan "$ex/llama3-70b-h100.toml" --set site.pue= --set site.climate=phoenix-az
out_has "climate_pue"
expect_status 0 -- "$bin" plan "$ft" --set site.pue=1.4 --csv
same_value "a given PUE wins over the climate" 1.4 "$(csv_value pue)"
expect_status 0 -- "$bin" plan "$ft" --set site.pue=1.4
out_has "pue_given"
# An unknown climate: exit 2, the key named, ids suggested.
expect_status 2 -- "$bin" plan "$ft" --set site.climate=phoenix
err_has "site.climate"; err_has "did you mean 'phoenix-az'"
printf '[workload]\ntype = "serve"\n[site]\nclimate = "dublin"\n' >"$tmp/climate.toml"
expect_status 2 -- "$bin" plan "$tmp/climate.toml"
err_has "climate.toml:4:11: site.climate"

# The help lists the plan keys; make demo's script runs a plan.
expect_status 0 -- "$bin" plan --help
out_has "workload.rate"; out_has "[workload]"; out_has "--sweep"
# A sweep streams its rows: 150,000 points run in 300 MB of address space (rows were kept, about 2.8 kB each,
# and the range's values held twice: issue 23, item 6). Skipped under AddressSanitizer, whose shadow memory
# needs terabytes of address space.
if [ -z "${ASAN_OPTIONS:-}" ]; then
  expect_status 0 -- bash -c 'ulimit -v 300000 && "$0" plan "$1" --sweep "workload.rate=1/s..100/s:150000" --csv' "$bin" "$ex/llama3-70b-h100.toml"
  out_lines 150001
fi

expect_status 0 -- "$src/examples/demo.sh" "$bin"
out_has "infracalc plan"

echo "plan tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
