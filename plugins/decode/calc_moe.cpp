// `decode moe`: a mixture-of-experts model stores every expert but a token uses k of them; a batch
// touches more experts the larger it is, so the bytes a step reads grow with the batch until every
// expert is read, and expert parallelism adds an all-to-all.
#include <fmt/format.h>

#include "catalog/model_arch.hpp"
#include "host/context.hpp"
#include "units/counts.hpp"
#include "plugins/decode/decode_calculators.hpp"
#include "plugins/decode/decode_inputs.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::decode {

namespace {

int count(Context& ctx, std::string_view key) { return ctx.count(key); }

void calculate_moe(Context& ctx) {
  std::optional<Workload> w;
  if (ctx.ref("model") != nullptr) {
    w = resolve_workload(ctx, true);
    if (!w->arch || !w->arch->moe)
      throw UserError{{"--model " + ctx.ref("model")->id() + " has no experts", "decode moe is for mixture-of-experts models; see `decode ceiling`"}};
  }
  if (!ctx.has("experts") || !ctx.has("experts_per_token"))
    throw UserError{{"missing --experts and --experts-per-token", "give both, or --model ID of a mixture-of-experts model"}};
  const int experts = count(ctx, "experts");
  const int k = count(ctx, "experts_per_token");
  if (k > experts) throw UserError{{fmt::format("--experts-per-token {} exceeds --experts {}", k, experts), ""}};
  if (w && w->arch->moe && (experts != w->experts || k != w->experts_per_token)) {
    w->experts = experts;
    w->experts_per_token = k;
  }
  const double batch = batch_of(ctx);
  const int ep = count(ctx, "ep");
  if (ep > experts) throw UserError{{fmt::format("--ep {} exceeds the {} experts", ep, experts), "expert parallelism places at least one expert per device"}};
  if (experts % ep != 0)
    throw UserError{{fmt::format("--ep {} does not divide the {} experts: every device holds the same number of whole experts", ep, experts),
                     "give --ep from " + divisors_text(experts)}};
  const double touched = expected_experts_touched(experts, k, batch);
  ctx.set_number("experts_touched", touched);
  ctx.set_number("experts_touched_fraction", touched / experts);
  if (w) {
    ctx.set_number("params_total", w->params_total);
    ctx.set_number("params_active", w->params_active);
    ctx.set_number("active_fraction", w->params_active / w->params_total);
    ctx.set("weights_bytes", w->weights_resident);
    ctx.set("active_weights_bytes", storage_bytes(w->params_active, w->weights_format));
    const Bytes read = weights_read(*w, batch);
    ctx.set("weights_read_per_step", read);
    ctx.set("weights_read_per_token", read / batch);
    ctx.set("flops_per_token", w->matmul_flops_per_token);
    // Under expert parallelism every device keeps the shared weights (data-parallel attention) and an
    // even share of the routed experts, of which it reads those the whole batch touched.
    const Bytes routed = static_cast<double>(w->moe_layers) * touched * w->expert_bytes;
    const Bytes per_device = read - routed + routed / static_cast<double>(ep);
    ctx.set("weights_read_per_device", per_device);
    if (ctx.has("bandwidth")) {
      const Roof roof = resolve_roof(ctx, false);
      ctx.set("memory_time", per_device / roof.bandwidth);
    }
    if (ep > 1)
      ctx.note("per device: the shared weights are replicated on every expert-parallel device (data-parallel attention), the "
               "routed experts spread evenly and read where the batch touched them");
  }
  const int layers = w ? w->moe_layers : (ctx.has("layers") ? count(ctx, "layers") : 0);
  const int hidden = w ? w->arch->hidden_size : (ctx.has("hidden_size") ? count(ctx, "hidden_size") : 0);
  if (layers > 0 && hidden > 0) {
    const auto link = ep > 1 ? resolve_link(ctx) : std::nullopt;
    const AllToAll a = expert_all_to_all(layers, hidden, k, batch, activation_bytes(ctx), ep, link ? &*link : nullptr);
    ctx.set_number("experts_per_device", experts / ep);
    ctx.set("all_to_all_per_token", a.per_token);
    ctx.set("all_to_all_per_device_per_step", a.per_device_per_step);
    if (link && ep > 1) ctx.set("all_to_all_time", a.time);
    ctx.note(fmt::format("all-to-all: each token's hidden vector goes to its {} experts and back (dispatch and combine), "
                         "the (ep-1)/ep of them on other devices, in each of {} MoE layers",
                         k, layers));
  } else {
    ctx.note("all-to-all volume needs the MoE layer count and width (give --model, or --layers and --hidden-size)");
  }
  Table t;
  t.name = "batch";
  t.title = "experts touched and weight bytes read per step, by batch";
  t.columns = {{"batch", dims::none, ""}, {"experts_touched", dims::none, ""}, {"fraction", dims::none, "%"},
               {"weights_read_per_step", dims::information, ""}, {"weights_read_per_token", dims::information, ""}};
  for (double b = 1; b <= 1024; b *= 2) {
    const double e = expected_experts_touched(experts, k, b);
    std::vector<Cell> row{Quantity::number(b), Quantity::number(e), Quantity::number(e / experts)};
    if (w) {
      const Bytes r = weights_read(*w, b);
      row.push_back(to_quantity(r));
      row.push_back(to_quantity(r / b));
    } else {
      row.push_back(Quantity{0.0, dims::information});
      row.push_back(Quantity{0.0, dims::information});
    }
    t.rows.push_back(std::move(row));
  }
  if (!w) {
    t.columns.resize(3);
    for (auto& r : t.rows) r.resize(3);
  }
  ctx.add_table(std::move(t));
  ctx.note("experts touched per layer = E (1 - (1 - k/E)^B): tokens routed uniformly and independently; real routers are skewed, "
           "so fewer distinct experts are read and the hot ones are loaded more heavily");
}

}  // namespace

Calculator moe_calculator() {
  Calculator c;
  c.name = "moe";
  c.summary = "mixture of experts: active vs total parameters, experts a batch touches, bytes per token, all-to-all";
  c.description =
      "A token passes through the shared weights and k of E routed experts per MoE layer (active parameters); a step of B "
      "tokens reads E (1 - (1 - k/E)^B) distinct experts per layer on average, so weight bytes per step grow from the "
      "active set at batch 1 towards every expert, and bytes per token fall. Expert parallelism over ep devices sends each "
      "token's hidden vector to its k experts and back: 2 x k x hidden x bytes x (ep-1)/ep per token per MoE layer.";
  c.refs = {{"model", {"model"}, "mixture-of-experts model from the catalog"},
            {"gpu", {"accelerator"}, "accelerator from the catalog: bandwidth and scale-up link"},
            {"link", {"interconnect"}, "scale-up link from the catalog (sets --link-bandwidth)"}};
  std::vector<Input> model;
  for (auto& in : model_inputs())
    if (in.name == "dtype" || in.name == "kv_dtype" || in.name == "layers" || in.name == "hidden_size") model.push_back(in);
  for (auto& in : model)
    if (in.name == "layers") in.help = "MoE layers (without --model)";
  std::vector<Input> device;
  for (auto& in : device_inputs(false))
    if (in.name == "bandwidth" || in.name == "mbu") device.push_back(in);
  c.inputs = join(join(join(
                           {
                               {.name = "experts", .kind = InputKind::integer, .help = "routed experts per MoE layer",
                                .example = "256", .catalog = "model.moe.experts", .optional = true, .most = kMaxExperts, .most_why = kModelLimitWhy},
                               {.name = "experts_per_token", .kind = InputKind::integer, .help = "routed experts each token activates (top-k)",
                                .example = "8", .catalog = "model.moe.experts_per_token", .optional = true, .most = kMaxExperts, .most_why = kModelLimitWhy},
                               {.name = "batch", .kind = InputKind::integer, .help = "tokens per step (sequences decoded together)",
                                .default_value = "1", .example = "64", .most = kMaxBatch, .most_why = kBatchWhy},
                               {.name = "ep", .kind = InputKind::integer, .help = "expert-parallel devices the experts are spread over (a divisor of the experts)",
                                .default_value = "1", .example = "8", .most = kMaxParallel, .most_why = kParallelWhy},
                           },
                           model),
                      device),
                  link_inputs());
  c.outputs = {
      {"params_total", dims::none, "parameters stored (every expert)"},
      {"params_active", dims::none, "parameters one token passes through"},
      {"active_fraction", dims::none, "active / total", "%"},
      {"weights_bytes", dims::information, "bytes of every weight"},
      {"active_weights_bytes", dims::information, "bytes of the weights one token passes through"},
      {"experts_touched", dims::none, "expected distinct routed experts per layer at --batch"},
      {"experts_touched_fraction", dims::none, "the same as a share of the experts", "%"},
      {"weights_read_per_step", dims::information, "weight bytes one step reads at --batch (all devices together)"},
      {"weights_read_per_token", dims::information, "weight bytes per token at --batch (the step's read shared by its tokens)"},
      {"flops_per_token", dims::flop, "matrix-product operations per token: 2 x active matrix parameters"},
      {"weights_read_per_device", dims::information, "weight bytes one expert-parallel device reads per step"},
      {"memory_time", dims::time, "weights one device reads per step / bandwidth"},
      {"experts_per_device", dims::none, "routed experts per device under --ep"},
      {"all_to_all_per_token", dims::information, "bytes the expert-parallel group moves per token (all MoE layers)"},
      {"all_to_all_per_device_per_step", dims::information, "bytes each device sends per step (all MoE layers)"},
      {"all_to_all_time", dims::time, "all-to-all time per step"},
  };
  c.run = calculate_moe;
  c.source = __FILE__;
  c.tables = {
      {"batch", "experts touched and weight bytes read per step, by batch"},
  };
  return c;
}

}  // namespace infracalc::decode
