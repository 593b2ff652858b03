// fit rlhf: the networks PPO, DPO and GRPO keep resident, their memory and the saving of GRPO over PPO.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "host/catalog_input.hpp"
#include "plugins/fit/fit_calculators.hpp"
#include "plugins/fit/fit_math.hpp"
#include "plugins/fit/fit_model.hpp"
#include "plugins/kv/kv_layout.hpp"

namespace infracalc::fit {

namespace {

RlhfMethod parse_method(const std::string& s) {
  if (s == "dpo") return RlhfMethod::dpo;
  if (s == "grpo") return RlhfMethod::grpo;
  return RlhfMethod::ppo;
}

Bytes sum(const std::vector<ResidentNet>& nets) {
  Bytes t = from_base<Bytes>(0.0);
  for (const auto& n : nets) t += n.total;
  return t;
}

void run_rlhf(Context& ctx) {
  const ResolvedModel m = resolve_model(ctx, false);
  const RlhfMethod method = parse_method(ctx.text("method"));
  const double critic = ctx.has("critic_params") ? ctx.number("critic_params") : m.params;
  const double reward = ctx.has("reward_params") ? ctx.number("reward_params") : m.params;
  const bool reward_model = ctx.text("reward") == "model";
  const Optimizer opt = ctx.text("optimizer") == "sgd" ? Optimizer::sgd : Optimizer::adamw;
  const StatePerParam trained = state_per_param(opt, from_base<Bytes>(2), from_base<Bytes>(2), true, 0);
  const Bytes frozen = bytes_per_value(*find_storage_format(ctx.text("frozen_dtype")));
  const auto nets = rlhf_networks(method, m.params, critic, reward, trained.total, frozen, reward_model);
  const auto ppo = rlhf_networks(RlhfMethod::ppo, m.params, critic, reward, trained.total, frozen, reward_model);
  const Bytes total = sum(nets);
  const Bytes ppo_total = sum(ppo);
  Bytes trained_b = from_base<Bytes>(0.0), frozen_b = from_base<Bytes>(0.0);
  Table t{"networks", "resident networks", {{"network", {}, {}}, {"params", dims::none, {}}, {"trained", {}, {}},
                                            {"bytes_per_param", dims::information, {}}, {"bytes", dims::information, {}}}, {}};
  for (const auto& n : nets) {
    (n.trained ? trained_b : frozen_b) += n.total;
    t.rows.push_back({n.role, Quantity::number(n.params), std::string(n.trained ? "yes" : "no (frozen)"), to_quantity(n.per_param),
                      to_quantity(n.total)});
  }
  ctx.add_table(std::move(t));
  ctx.set_number("networks", static_cast<double>(nets.size()));
  ctx.set_number("trained_networks", static_cast<double>(std::count_if(nets.begin(), nets.end(), [](const ResidentNet& n) { return n.trained; })));
  ctx.set("bytes_per_policy_param", total / m.params);
  ctx.set("trained_state", trained_b);
  ctx.set("frozen_weights", frozen_b);
  ctx.set("total", total);
  ctx.set("ppo_total", ppo_total);
  if (method != RlhfMethod::ppo) {
    ctx.set_number("saving_vs_ppo", ((ppo_total - total) / ppo_total).value());
    ctx.note(fmt::format("{} drops {} of PPO's {} ({}): only trained networks carry the {}/param optimizer state, so "
                         "dropping the critic saves more than a quarter",
                         ctx.text("method"), method == RlhfMethod::grpo ? "the critic" : "the critic and the reward model",
                         ctx.quote(ppo_total), ctx.quote_percent(((ppo_total - total) / ppo_total).value()), ctx.quote(trained.total)));
  }
  Bytes rollout = from_base<Bytes>(0.0);
  if (ctx.has("rollout_tokens")) {
    if (!m.arch) throw UserError{{"--rollout-tokens needs the architecture for the KV cache", "give --model ID or the architecture flags"}};
    const double prompts = static_cast<double>(ctx.integer("prompts"));
    const double group = method == RlhfMethod::grpo ? static_cast<double>(ctx.integer("group")) : 1.0;
    const StorageFormat& kvf = *find_storage_format(ctx.text("kv_dtype"));
    rollout = kv::cache_size(*m.arch, kvf, ctx.get<Tokens>("rollout_tokens"), Number::from_value(prompts * group)).total;
    ctx.set("rollout_kv", rollout);
    ctx.note(fmt::format("rollout KV cache: {} prompts x {} samples each x {} in {}{}", ctx.quote_count(prompts), ctx.quote_count(group),
                         ctx.quote(ctx.get<Tokens>("rollout_tokens")), kvf.name,
                         method == RlhfMethod::grpo ? " (GRPO samples a group per prompt to form its baseline)" : ""));
  }
  const Bytes all = total + rollout;
  ctx.set("total_with_rollout", all);
  if (const auto mem = device_memory(ctx)) {
    ctx.set_number("min_devices", static_cast<double>(min_devices(all, *mem)));
    ctx.note("min_devices assumes every network's state is sharded evenly (ZeRO-3 style) with nothing else resident");
  }
  ctx.note(fmt::format("trained networks: {}/param (BF16 weights and gradients, FP32 master and moments); frozen: {} ({}/param)",
                       ctx.quote(trained.total), ctx.text("frozen_dtype"), ctx.quote(frozen)));
}

}  // namespace

Calculator rlhf_calculator() {
  Calculator c;
  c.name = "rlhf";
  c.summary = "resident networks of PPO, DPO and GRPO and the memory each needs";
  c.description =
      "PPO keeps four networks: policy and critic trained (16 B/param each with mixed-precision Adam), reference and reward "
      "frozen (2 B/param in BF16): 36 B per policy parameter when all are the same size. DPO keeps a trained policy and a "
      "frozen reference (18 B). GRPO drops the critic and takes its baseline from a group of samples per prompt (20 B, a "
      "44% saving over PPO).";
  c.refs = {{"model", {"model"}, "policy model id"}, {"gpu", {"accelerator"}, "accelerator id: device memory"}};
  c.inputs = model_inputs();
  c.inputs.push_back({.name = "method", .kind = InputKind::choice, .help = "ppo, dpo or grpo", .default_value = "ppo",
                      .choices = {"ppo", "dpo", "grpo"}});
  c.inputs.push_back({.name = "critic_params", .kind = InputKind::quantity, .dim = dims::none,
                      .help = "critic parameters (default: the policy's)", .example = "7e9", .optional = true});
  c.inputs.push_back({.name = "reward_params", .kind = InputKind::quantity, .dim = dims::none,
                      .help = "reward-model parameters (default: the policy's)", .example = "7e9", .optional = true});
  c.inputs.push_back({.name = "reward", .kind = InputKind::choice, .help = "reward from a learned model or a rule (no network)",
                      .default_value = "model", .choices = {"model", "rule"}});
  c.inputs.push_back({.name = "optimizer", .kind = InputKind::choice, .help = "optimizer of the trained networks",
                      .default_value = "adamw", .choices = {"adamw", "sgd"}});
  c.inputs.push_back({.name = "frozen_dtype", .kind = InputKind::choice, .help = "storage format of the frozen networks",
                      .default_value = "bf16", .example = "fp32", .choices = storage_format_names()});
  c.inputs.push_back({.name = "prompts", .kind = InputKind::integer, .help = "prompts per rollout batch", .default_value = "64",
                      .example = "512"});
  c.inputs.push_back({.name = "group", .kind = InputKind::integer, .help = "GRPO samples per prompt", .default_value = "8",
                      .example = "16"});
  c.inputs.push_back({.name = "rollout_tokens", .kind = InputKind::quantity, .dim = dims::token,
                      .help = "tokens per rollout sequence (adds the rollout KV cache)", .example = "4k", .optional = true});
  c.inputs.push_back({.name = "kv_dtype", .kind = InputKind::choice, .help = "rollout KV-cache format", .default_value = "bf16",
                      .choices = storage_format_names()});
  c.inputs.push_back({.name = "memory", .kind = InputKind::quantity, .dim = dims::information, .help = "memory per device",
                      .example = "80GB", .catalog = kGpuMemoryCatalog, .optional = true});
  c.outputs = {
      {"networks", dims::none, "resident networks"},
      {"trained_networks", dims::none, "networks with gradients and optimizer state"},
      {"bytes_per_policy_param", dims::information, "resident bytes per policy parameter"},
      {"trained_state", dims::information, "state of the trained networks"},
      {"frozen_weights", dims::information, "weights of the frozen networks"},
      {"total", dims::information, "all resident networks"},
      {"ppo_total", dims::information, "the same models under PPO"},
      {"saving_vs_ppo", dims::none, "share of PPO's bytes this method does not need"},
      {"rollout_kv", dims::information, "KV cache of the rollout batch"},
      {"total_with_rollout", dims::information, "networks plus rollout KV cache"},
      {"min_devices", dims::none, "ceil(total with rollout / device memory)"},
  };
  c.run = run_rlhf;
  c.source = __FILE__;
  c.tables = {
      {"networks", "resident networks and what each holds"},
  };
  return c;
}

}  // namespace infracalc::fit
