// cluster recompute: √n activation checkpointing on a chain of layers, run for real, step by step.
#include <cmath>
#include <fmt/format.h>

#include "catalog/model_arch.hpp"
#include "plugins/cluster/cluster_calculators.hpp"
#include "plugins/cluster/recompute.hpp"

namespace infracalc::cluster {

namespace {

void run_recompute(Context& ctx) {
  const auto n64 = ctx.integer("layers");
  if (n64 < 1 || n64 > 100000) throw UserError{{"--layers: expected 1 to 100,000 layers", "e.g. --layers 9"}};
  const int n = static_cast<int>(n64);
  const int k = ctx.has("interval") ? ctx.count("interval") : sqrt_interval(n);
  if (k < 1 || k > n) throw UserError{{fmt::format("--interval {}: expected 1 to {} (the layer count)", k, n), "omit it for ceil(sqrt(n))"}};
  ctx.set_number("interval", k);
  ctx.set_number("checkpoints", checkpoints_kept(n, k));
  ctx.set_number("peak_activations", peak_activations(n, k));
  ctx.set_number("peak_without", n);
  ctx.set_number("memory_saving", 1.0 - static_cast<double>(peak_activations(n, k)) / n);
  ctx.set_number("recomputed_layers", recomputed_layers(n, k));
  const double ratio = ctx.number("backward_ratio");
  ctx.set_number("extra_compute", recomputed_layers(n, k) / (n * (1.0 + ratio)));

  const bool record = n <= 200;
  const ChainRun run = run_chain(n, 8, k, record);
  ctx.set_number("peak_measured", run.peak_held);
  ctx.set_number("recomputed_measured", run.recomputed);
  const ChainRun all = run_chain(n, 8, 1, false);
  double diff = 0;
  for (std::size_t i = 0; i < all.input_grad.size(); ++i) diff = std::max(diff, std::fabs(all.input_grad[i] - run.input_grad[i]));
  for (std::size_t i = 0; i < all.param_grad.size(); ++i) diff = std::max(diff, std::fabs(all.param_grad[i] - run.param_grad[i]));
  ctx.set_number("gradient_difference", diff);

  if (ctx.has("activation_per_layer")) {
    const Bytes per = ctx.get<Bytes>("activation_per_layer");
    ctx.set("activations_kept", static_cast<double>(peak_activations(n, k)) * per);
    ctx.set("activations_without", static_cast<double>(n) * per);
  }
  if (record) {
    Table t{"steps", "the run, step by step (layer inputs held after each step)", {{"step", dims::none}, {"action"}, {"layer", dims::none}, {"held", dims::none}}, {}};
    int i = 0;
    for (const auto& e : run.events) t.rows.push_back({Quantity::number(++i), e.what, Quantity::number(e.layer), Quantity::number(e.held)});
    ctx.add_table(std::move(t));
  } else {
    ctx.note("steps table omitted above 200 layers");
  }
  std::string kept;
  for (int i = 0; i < n && kept.size() < 200; i += k) kept += (kept.empty() ? "" : ", ") + std::to_string(i + 1);
  ctx.note(fmt::format("checkpoints at the inputs of layers {}; the backward pass recomputes each segment from its checkpoint, last "
                       "segment first", kept));
  ctx.note(fmt::format("a real chain of {} tanh layers ran forward and backward twice, keeping every input and keeping only the "
                       "checkpoints: the gradients agree to {}", n, ctx.quote_number(diff)));
}

}  // namespace

Calculator recompute_calculator() {
  Calculator c;
  c.name = "recompute";
  c.summary = "√n activation checkpointing: checkpoints kept, peak activations, layers recomputed, step by step";
  c.description =
      "Keep the input of every k-th layer (k = ceil(sqrt(n)) by default; Chen et al. 2016); in the backward pass recompute each "
      "segment from its checkpoint. Peak layer inputs held = ceil(n/k) + k - 1 (about 2 sqrt(n) instead of n); recomputed layer "
      "forwards = n - ceil(n/k), about one extra forward pass (a third more compute when backward costs two forwards). The "
      "calculator runs a real chain of layers both ways and checks the gradients agree.";
  c.inputs = {
      {.name = "layers", .kind = InputKind::integer, .help = "layers in the chain n", .example = "9", .most = kMaxLayers, .most_why = kModelLimitWhy},
      {.name = "interval", .kind = InputKind::integer, .help = "keep every k-th layer input (default ceil(sqrt(n)))", .example = "3",
       .optional = true, .most = kMaxLayers},
      {.name = "backward_ratio", .kind = InputKind::quantity, .dim = dims::none, .help = "backward cost / forward cost",
       .default_value = "2"},
      {.name = "activation_per_layer", .kind = InputKind::quantity, .dim = dims::information,
       .help = "bytes one layer input occupies (gives bytes kept)", .example = "570MB", .optional = true},
  };
  c.outputs = {
      {"interval", dims::none, "k: layers per segment"},
      {"checkpoints", dims::none, "layer inputs kept by the forward pass"},
      {"peak_activations", dims::none, "most layer inputs held at once"},
      {"peak_without", dims::none, "layer inputs held without checkpointing (n)"},
      {"memory_saving", dims::none, "1 - peak / n"},
      {"recomputed_layers", dims::none, "layer forwards re-run in the backward pass"},
      {"extra_compute", dims::none, "recomputed forwards / (forward + backward of every layer)"},
      {"peak_measured", dims::none, "peak the real run held"},
      {"recomputed_measured", dims::none, "layer forwards the real run re-ran"},
      {"gradient_difference", dims::none, "largest gradient difference between the two runs"},
      {"activations_kept", dims::information, "peak x --activation-per-layer"},
      {"activations_without", dims::information, "n x --activation-per-layer"},
  };
  c.run = run_recompute;
  c.source = __FILE__;
  c.tables = {
      {"steps", "the run step by step: layer inputs held after each step"},
  };
  return c;
}

}  // namespace infracalc::cluster
