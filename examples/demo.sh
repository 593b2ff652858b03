#!/usr/bin/env bash
# A demonstration of infracalc: a few single calculations, then the planner on a real scenario (a chat
# service for Llama 3 70B on DGX H100), a what-if, a sweep and its Pareto front.
# Usage: examples/demo.sh [PATH_TO_INFRACALC]
set -euo pipefail
bin=${1:-build/bin/infracalc}
here=$(cd "$(dirname "$0")" && pwd)
run() {
  printf '\n$ infracalc %s\n' "$*"
  "$bin" "$@"
}
run --version
run calc '140 GB / (3.35 TB/s)'
run calc '700 W * 1 yr -> MWh'
run hw show h100-sxm
run kv size --model llama-3-70b --tokens 128k
run decode ceiling --model llama-3-70b --gpu h100-sxm --batch 16 --tokens 8k
# The planner: model, hardware, load, site and money in one file, every line with how it was made.
run plan "$here/llama3-70b-h100.toml"
# What if the load were 50 requests per second, on H100 or B200? Each system at the catalog's purchase price
# (the accelerator alone); the catalog has no B200 rental price, so the rental comparison is left out.
run plan "$here/llama3-70b-h100.toml" --set workload.rate=50/s --set money.capex_per_gpu= --set money.purchase=h100-sxm-purchase \
  --set money.rental= --columns gpus,racks,it_power,cost_per_mtok --sweep hardware.system=dgx-h100,dgx-b200
# Which systems and batches are worth it: cost per million tokens against time per output token, both systems
# priced from the catalog (the accelerator alone).
run plan "$here/llama3-70b-h100.toml" --set money.capex_per_gpu= --set money.purchase=h100-sxm-purchase --set money.rental= \
  --sweep hardware.system=dgx-h100,dgx-b200 --sweep batch=8,32,128 --pareto cost_per_mtok,tpot
# A 100 MW site: two tariffs, two cooling choices.
run plan "$here/site-100mw.toml"
