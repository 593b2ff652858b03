#include "plugins/cost/cost_ledger.hpp"

namespace infracalc::cost {

Ledger charge_run(const serve::SimInput& input, const serve::EngineConfig& engine, const serve::StepModel& model, UsdPerHour gpu_hour) {
  Ledger l;
  l.request_cost.assign(input.requests.size(), from_base<Usd>(0.0));
  const serve::StepObserver charge = [&](const serve::StepEvent& e) {
    double prompt = 0, decoded = 0;
    for (const auto& it : e.items) {
      prompt += static_cast<double>(it.prefill_tokens);
      if (it.output_token && it.prefill_tokens == 0) decoded += 1;
    }
    const double tokens = prompt + decoded;
    if (tokens == 0) return;  // a step of swap copies only: charged to nobody, like idle time
    if (e.sample->prefilling > 0) l.prefill_time += e.duration;
    else l.decode_time += e.duration;
    const Usd per_token = gpu_hour * e.duration / tokens;
    for (const auto& it : e.items) {
      const double mine_in = static_cast<double>(it.prefill_tokens);
      const double mine_out = it.output_token && it.prefill_tokens == 0 ? 1.0 : 0.0;
      l.request_cost[static_cast<std::size_t>(it.request)] += (mine_in + mine_out) * per_token;
      l.input_cost += mine_in * per_token;
      l.output_cost += mine_out * per_token;
    }
    l.input_tokens += from_base<Tokens>(prompt);
    l.output_tokens += from_base<Tokens>(decoded);
  };
  l.run = serve::simulate(input, engine, model, charge);
  l.wall = l.run.makespan;
  l.paid = gpu_hour * l.wall;
  l.idle_cost = gpu_hour * (l.wall - l.prefill_time - l.decode_time);
  return l;
}

}  // namespace infracalc::cost
