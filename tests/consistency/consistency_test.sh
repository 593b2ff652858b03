#!/usr/bin/env bash
# One question, one answer (issue 19, item 14): asks the same question through every command that answers it
# and asserts they agree. Each check names the concept and the commands.
# Usage: consistency_test.sh INFRACALC SOURCE_DIR
set -u
bin=$1
src=$2
# shellcheck source=../shell_env.sh
source "$(dirname "$0")/../shell_env.sh"

# value KEY -- command...: the output KEY of a calculator (base units, from --csv).
value() {
  local key=$1
  shift 2
  "$bin" "$@" --csv 2>"$tmp/err" | awk -F, -v k="$key" '$1 == k { print $2; exit }'
}
# plan_value KEY FILE: a worksheet line of a plan (base units, from --csv, which has the calculators' key,value,unit).
plan_value() { "$bin" plan "$2" --csv 2>"$tmp/err" | awk -F, -v k="$1" '$1 == k { print $2; exit }'; }
# input_value KEY -- command...: the value an input took (from the table output), e.g. a default dtype.
input_value() {
  local key=$1
  shift 2
  "$bin" "$@" 2>"$tmp/err" | awk -v k="$key" 'section && $1 == k { print $2; exit } /^inputs$/ { section = 1 }'
}
# same CONCEPT A B [C...]: every answer equals the first (relative 1e-9 for numbers, exact for text).
same() {
  local what=$1; shift
  local first=$1 v
  for v in "$@"; do
    if [ -z "$v" ]; then bad "$what: a command gave no answer (answers: $*)"; return; fi
  done
  for v in "$@"; do
    if ! awk -v a="$first" -v b="$v" 'BEGIN {
        if (a == b) exit 0
        if (a + 0 == a && b + 0 == b) { d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a); exit !(d <= 1e-9 * m) }
        exit 1 }'; then
      bad "$what: $first against $v (answers: $*)"; return
    fi
  done
  ok
}

# The year: a kW for the default period of every command that has one is 8,766 kWh (the Julian year).
year_j=$(awk 'BEGIN { printf "%.1f", 1000 * 365.25 * 86400 }')
same "energy of 1 kW over a year (J)" "$year_j" \
  "$(value it_energy -- power energy --power 1kW)" \
  "$(value energy_used -- tco energy --power 1kW --tariff '$0.10/kWh')" \
  "$(awk -v w="$(value water -- cooling facility --it-power 1kW --pue 1 --wue 1L/kWh)" 'BEGIN { printf "%.1f", w * 1000 * 3.6e6 }')" \
  "$(awk -v s="$(plan_value energy_period "$src/examples/llama3-70b-h100.toml")" 'BEGIN { printf "%.1f", s * 1000 }')"

# The weight format without a model: one default (bf16) for every command that stores weights.
same "default weight format" bf16 \
  "$(input_value dtype -- fit weights --params 70e9)" \
  "$(input_value dtype -- fit inference --params 70e9 --layers 80 --hidden-size 8192 --heads 64 --kv-heads 8 --memory 1TB --tokens 1)" \
  "$(input_value dtype -- decode ceiling --params 70e9 --bandwidth 3.35TB/s)"
same "weights of 70e9 parameters at the default format (B)" 1.4e+11 \
  "$(value weights -- fit weights --params 70e9)" \
  "$(value weights -- fit inference --params 70e9 --layers 80 --hidden-size 8192 --heads 64 --kv-heads 8 --memory 1TB --tokens 1)" \
  "$(value weights_total -- kv capacity --params 70e9 --layers 80 --kv-heads 8 --head-dim 128 --memory 1TB)"

# The weight format with a model: its native checkpoint format, whichever command is asked.
same "gpt-oss-120b weight bytes (native MXFP4 experts)" \
  "$(value weights -- fit weights --model gpt-oss-120b)" \
  "$(value weights -- fit inference --model gpt-oss-120b --memory 1TB --tokens 1)"
same "DeepSeek-V3 weight format (native FP8)" fp8 \
  "$(input_value dtype -- fit weights --model deepseek-v3)" \
  "$(input_value dtype -- decode ceiling --model deepseek-v3 --gpu h200-sxm)" \
  "$(input_value weight_dtype -- kv capacity --model deepseek-v3 --gpu h200-sxm)"

# Device memory: what software sees on an H100 SXM, in every command and in the plan.
same "memory of one H100 SXM (B)" "$(awk 'BEGIN { printf "%.0f", 81559 * 1048576 }')" \
  "$(value memory -- fit inference --model llama-3-8b --gpu h100-sxm --tokens 8000)" \
  "$(value memory -- fit weights --model llama-3-8b --gpu h100-sxm)" \
  "$(value memory_per_device -- kv capacity --model llama-3-8b --gpu h100-sxm --context 8000)" \
  "$(plan_value gpu_memory "$src/examples/llama3-70b-h100.toml")"

# The largest batch: fit inference and kv capacity keep one reserve (utilization, framework reserve,
# communication buffers); with fit's activation estimate set to zero they give the same batch.
same "max batch of Llama 3 8B at 8,000 tokens on one H100" \
  "$(value max_batch -- fit inference --model llama-3-8b --gpu h100-sxm --tokens 8000 --activations 0GB)" \
  "$(value max_batch -- kv capacity --model llama-3-8b --gpu h100-sxm --context 8000)"
same "max batch of Llama 3 70B at 8,000 tokens on two H100s (FP8 weights)" \
  "$(value max_batch -- fit inference --model llama-3-70b --gpu h100-sxm --tokens 8000 --tp 2 --dtype fp8 --activations 0GB)" \
  "$(value max_batch -- kv capacity --model llama-3-70b --gpu h100-sxm --context 8000 --tp 2 --weight-dtype fp8)"

# Prefill: causal everywhere; one prompt's time to first token in decode and in the serving simulator.
same "TTFT of one 4,000-token prompt, Llama 3.1 8B on H100 (s)" \
  "$(value ttft -- decode prefill --model llama-3.1-8b --gpu h100-sxm --tokens 4000)" \
  "$(value ttft_p50 -- serve simulate --model llama-3.1-8b --gpu h100-sxm --requests 4000+2)"
same "prefill operations of 4,000 tokens, Llama 3.1 8B (FLOP)" \
  "$(value prefill_flops -- decode prefill --model llama-3.1-8b --gpu h100-sxm --tokens 4000)" \
  "$(value prefill_flops -- decode roofline --model llama-3.1-8b --gpu h100-sxm --tokens 4000)"

# Idle power: the DGX H100's idle floor at zero load, in power rack and power energy.
same "DGX H100 at zero load (W)" 2400 \
  "$(value rack_average -- power rack --system dgx-h100 --utilisation 0)" \
  "$(value average_power -- power energy --system dgx-h100 --utilisation 0)"

# Training work: cost train prices the run with cluster train's work model (6·N·D plus the attention term),
# so both give the same FLOPs and accelerator time; the planner's training sheet uses the same figure.
train=(--model llama-3.1-405b --tokens 15.6T --gpu h100-sxm --mfu 40%)
same "training FLOPs of Llama 3.1 405B on 15.6T tokens (FLOP)" \
  "$(value training_flops -- cluster train "${train[@]}" --gpus 16384)" \
  "$(value training_flops_used -- cost train "${train[@]}" --gpu-hour '$2/h')"
same "accelerator time of that run at 40% MFU (s)" \
  "$(value gpu_time -- cluster train "${train[@]}" --gpus 16384)" \
  "$(value useful_accelerator_time -- cost train "${train[@]}" --gpu-hour '$2/h')"
same "training FLOPs of Llama 3 70B on 15T tokens at 4,096-token sequences (FLOP)" \
  "$(value training_flops -- cluster train --model llama-3-70b --tokens 15T --seq 4096 --gpu h100-sxm --gpus 1024)" \
  "$(value training_flops_used -- cost train --model llama-3-70b --tokens 15T --seq 4096 --gpu h100-sxm --mfu 40% --gpu-hour '$2/h')"

# The memory tiers: kv ladder starts from kv offload's tiers (one set of flags and defaults), so NVMe / CXL latency
# is one answer.
same "NVMe latency / CXL latency: kv offload, kv ladder" \
  "$(value cxl_vs_nvme_latency -- kv offload --cache 40GB --cxl-latency 250ns)" \
  "$(value nvme_vs_cxl_latency -- kv ladder --cxl-latency 250ns)"
same "NVMe latency / CXL latency with both commands' defaults: kv offload, kv ladder" \
  "$(value cxl_vs_nvme_latency -- kv offload --cache 40GB)" \
  "$(value nvme_vs_cxl_latency -- kv ladder)"

# A site's climate: cooling climate's annual PUE is the one tco siting --climate and a plan's site.climate use.
for site in singapore-sg lulea-se; do
  same "annual PUE of $site through air cooling" \
    "$(value pue -- cooling climate --site $site --cooling air)" \
    "$(value pue_from_climate -- tco siting --climate $site --cooling air)" \
    "$("$bin" plan "$src/examples/llama3.1-70b-qlora-h100.toml" --set site.climate=$site --set site.climate_cooling=air --csv 2>"$tmp/err" |
       awk -F, '$1 == "pue" { print $2; exit }')"
done

echo "consistency: $pass agree, $fail disagree"
[ "$fail" -eq 0 ]
