// `decode offload`: decode with the weights (and optionally the KV cache) that do not fit device memory held in
// host memory and streamed over PCIe or NVLink-C2C every step: what it does to tokens per second and to cost.
#include <fmt/format.h>

#include "catalog/catalog.hpp"
#include "host/catalog_input.hpp"
#include "host/context.hpp"
#include "plugins/decode/decode_calculators.hpp"
#include "plugins/decode/decode_inputs.hpp"
#include "plugins/decode/decode_offload.hpp"
#include "plugins/decode/decode_step_common.hpp"
#include "plugins/fit/fit_math.hpp"
#include "plugins/fit/fit_serving.hpp"
#include "plugins/fit/fit_serving_inputs.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::decode {

namespace {

// The host links a node can have, fastest PCIe generation last and the coherent CPU-GPU link after them; their
// per-direction bandwidths are the catalog's (data/interconnects, each sourced).
constexpr const char* kHostLinks[] = {"pcie-4", "pcie-5", "pcie-6", "nvlink-c2c"};

// The device's fixed reserve and its KV cache from fit's waterfall, so that `fit inference` and this calculator agree
// on what is left for the weights. Without an architecture only the framework reserve is known.
fit::Waterfall device_waterfall(Context& ctx, const Workload& w, double batch, Tokens tokens, int tp) {
  fit::InferenceSetup s;
  fit::read_reserve(ctx, s);
  if (!w.arch) {
    fit::Waterfall f;
    f.weights = w.weights_resident / static_cast<double>(tp);
    f.framework = s.framework;
    if (tp > 1) f.comm = s.comm;
    if (s.activations) f.activations = *s.activations;
    f.total = fit::waterfall_total(f);
    ctx.note("no architecture: the KV cache and the activations are not sized (give --model, or --activations for the latter)");
    return f;
  }
  s.arch = *w.arch;
  s.params = w.params_total;
  s.experts = fit::routed_expert_params(*w.arch);
  s.dtype = &w.weights_format;
  s.expert_dtype = &w.weights_format;
  s.kv_dtype = &w.kv_format;
  return fit::inference_waterfall(s, tokens, batch, tp, 1);
}

// Host memory this device may fill: --host-memory, else the system's host memory shared evenly by its accelerators.
std::optional<Bytes> host_memory(Context& ctx) {
  if (ctx.has("host_memory")) return ctx.get<Bytes>("host_memory");
  const Entry* sys = ctx.ref("system");
  if (sys == nullptr) return std::nullopt;
  const auto total = ctx.catalog<Bytes>(*sys, "host_memory");
  const auto n = ctx.catalog<Number>(*sys, "accelerators");
  if (!total || !n) return std::nullopt;
  const Bytes share = *total / n->value();
  record_input(ctx, "host_memory", to_quantity(share), Origin::derived, ctx.quote(share), sys->id(),
               "host_memory / accelerators");
  ctx.note(fmt::format("host memory per device: {}'s {} shared by its {} accelerators, {}", sys->id(), ctx.quote(*total),
                       ctx.quote_count(n->value()), ctx.quote(share)));
  return share;
}

void run_offload(Context& ctx) {
  const DecodeCase c = decode_case(ctx, false);
  const double batch = c.batch;
  const bool prefetch = ctx.text("overlap") == "prefetch";
  const BytesPerSecond host_bw = ctx.get<BytesPerSecond>("host_bandwidth");

  note_device_memory(ctx, "memory");
  const Bytes memory = ctx.get<Bytes>("memory");
  const Bytes usable = ctx.number("memory_utilization") * memory;
  const fit::Waterfall f = device_waterfall(ctx, c.w, batch, c.tokens, c.tp);
  const Bytes reserve = f.activations + f.framework + f.comm;
  const Bytes budget = usable - reserve;
  const auto placed = place_offload(budget, f.weights, f.kv, ctx.flag("offload_kv"));
  if (!placed)
    throw UserError{{fmt::format("the KV cache of {:g} sequences at --tokens {:g} ({}) does not fit the {} of device memory left after "
                                 "the reserve, even with every weight in host memory",
                                 batch, c.tokens.value(), ctx.quote(f.kv), ctx.quote(std::max(budget, Bytes{}))),
                     "give --offload-kv to hold part of the cache in host memory too, or a smaller --batch or --tokens"}};
  const OffloadPlacement& p = *placed;
  const Bytes streamed = streamed_bytes(p, c.d);
  const StepCost resident = resident_cost(p, c.d);

  // The device's part is the decode ceiling's step on the resident traffic, so nothing offloaded gives `decode ceiling`.
  const StepTime all_hbm = step_time(c.d.cost(), c.roof, c.tc.ceiling, c.overhead);
  const StepTime dev = step_time(resident, c.roof, c.tc.ceiling, c.overhead);
  const OffloadStep s = offload_step(dev.total, streamed, host_bw, prefetch);

  ctx.set("memory", memory);
  ctx.set("usable", usable);
  ctx.set("reserve", reserve);
  ctx.set("weights_bytes", f.weights);
  ctx.set("kv_bytes", f.kv);
  ctx.set("weights_resident", p.weights_resident);
  ctx.set("weights_offloaded", p.weights_offloaded);
  ctx.set("kv_resident", p.kv_resident);
  ctx.set("kv_offloaded", p.kv_offloaded);
  ctx.set("resident_bytes", p.weights_resident + p.kv_resident);
  ctx.set("offloaded_bytes", p.offloaded());
  ctx.set("streamed_per_step", streamed);
  ctx.set("host_bandwidth", host_bw);
  ctx.set("device_time", s.device);
  ctx.set("link_time", s.link);
  ctx.set("step_time", s.total);
  ctx.set("tokens_per_second_per_stream", from_base<Tokens>(1.0) / s.total);
  ctx.set("tokens_per_second", from_base<Tokens>(batch) / s.total);
  ctx.set("all_hbm_step_time", all_hbm.total);
  ctx.set_number("slowdown", s.total / all_hbm.total);
  if (ctx.has("gpu_hour")) {
    const auto price = ctx.get<UsdPerHour>("gpu_hour");
    const TokensPerSecond rate = from_base<Tokens>(batch) / s.total;
    // One device's hour buys rate x 3600 s of tokens; tp devices decode one batch together.
    ctx.set("cost_per_token", static_cast<double>(c.tp) * price / rate);
    ctx.set("all_hbm_cost_per_token", static_cast<double>(c.tp) * price / (from_base<Tokens>(batch) / all_hbm.total));
  }
  if (expected_wanted(ctx)) {
    const Engine engine = engine_of(ctx);
    const StepShape shape{batch, batch, precision_bits(compute_precision(ctx)), c.d.attention_flops};
    const StepTime x = calibrated_step_time(efficiency(), engine, resident, shape, c.roof, c.tc.expected);
    const OffloadStep xs = offload_step(x.total, streamed, host_bw, prefetch);
    ctx.set("expected_step_time", xs.total);
    ctx.set("expected_tokens_per_second", from_base<Tokens>(batch) / xs.total);
    expected_note(ctx, engine);
  }

  const bool fits = p.offloaded().value() == 0;
  ctx.verdict("fits_in_device", fits,
              fmt::format("{} of weights and KV per device, {} usable after a {} reserve", ctx.quote(f.weights + f.kv),
                          ctx.quote(std::max(budget, Bytes{})), ctx.quote(reserve)));
  if (const auto host = host_memory(ctx)) {
    ctx.set("host_memory", *host);
    ctx.verdict("host_fits", p.offloaded() <= *host,
                fmt::format("{} offloaded of {} host memory for this device", ctx.quote(p.offloaded()), ctx.quote(*host)));
  } else {
    ctx.note("host memory not checked: give --host-memory or --system ID");
  }

  Table t{"links", "the same step over each host link",
          {{"link"}, {"bandwidth", dims::data_rate}, {"link_time", dims::time}, {"step_time", dims::time},
           {"tokens_per_second", dims::token_rate}, {"slowdown", dims::none}},
          {}};
  for (const char* id : kHostLinks) {
    const Entry& e = Catalog::instance().get(id, {"interconnect"}, "--host-link");
    const auto bw = ctx.catalog<BytesPerSecond>(e, "bandwidth_per_direction");
    if (!bw) continue;
    const OffloadStep row = offload_step(dev.total, streamed, *bw, prefetch);
    t.rows.push_back({std::string(id), to_quantity(*bw), to_quantity(row.link), to_quantity(row.total),
                      to_quantity(from_base<TokensPerSecond>(batch / row.total.value())), Quantity::number(row.total / all_hbm.total)});
  }
  ctx.add_table(std::move(t));

  ctx.note(prefetch ? "--overlap prefetch: the next layer's weights cross the link while this layer computes; step = max(device, link)"
                    : "--overlap none: each layer waits for its weights to arrive; step = device + link (give --overlap prefetch for max)");
  ctx.note("every offloaded weight crosses the link every step: the router has not chosen the experts when the transfer must start; "
           "the link runs at its datasheet rate, one direction (give --host-bandwidth for a measured figure)");
  ctx.note("the device reserve (activations, framework, communication buffers) and the KV cache are fit inference's waterfall; "
           "weights fill what is left, and the rest lives in host memory");
}

}  // namespace

Calculator offload_calculator() {
  Calculator c;
  c.name = "offload";
  c.summary = "decode with weights (and optionally KV) in host memory over PCIe or NVLink-C2C: tokens per second and cost";
  c.description =
      "resident = memory x utilization - reserve (fit inference's activations, framework reserve and communication "
      "buffers); the KV cache stays on the device and the weights that do not fit live in host memory (with --offload-kv "
      "the cache spills too, once every weight is on the host). Each step streams every offloaded byte over the host link: "
      "link time = streamed / --host-bandwidth; device time = the decode ceiling of the resident traffic; step = device + "
      "link (--overlap none) or max(device, link) (--overlap prefetch). Reports tokens per second, the slowdown against "
      "holding everything in HBM, the cost per token with --gpu-hour, whether the host memory holds the offloaded part, and "
      "the same step over PCIe 4.0, 5.0, 6.0 x16 and NVLink-C2C.";
  c.refs = model_gpu_refs();
  c.refs.push_back({"link", {"interconnect"}, "scale-up link from the catalog, for --tp all-reduces (sets --link-bandwidth)"});
  c.refs.push_back({"host_link", {"interconnect"}, "link between the device and host memory (pcie-5, nvlink-c2c): sets --host-bandwidth"});
  c.refs.push_back(system_ref("node or rack from the catalog: sets --gpu (its accelerator), --link (its scale-up interconnect), "
                              "--host-link (its host_link) and the host memory of one device (its host_memory / accelerators)",
                              {{"link", "scaleup_interconnect"}, {"host_link", "host_link"}}));
  c.inputs = join(join(join(model_inputs(), device_inputs(true)), step_inputs()), link_inputs());
  c.inputs.push_back(engine_input());
  for (auto& in : fit::serving_memory_inputs()) c.inputs.push_back(in);
  // PCIe 5.0 x16, one direction: 32 GT/s x 16 lanes x 128/130 / 8 (PCI Express Base Specification 5.0, PCI-SIG 2019),
  // the host link of H100, H200 and MI300X (their datasheets: PCIe Gen5 x16).
  c.inputs.push_back({.name = "host_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate,
                      .help = "host memory to device bandwidth, one direction (default: PCIe 5.0 x16)", .default_value = "63.02 GB/s",
                      .example = "450GB/s", .catalog = "host_link.bandwidth_per_direction"});
  c.inputs.push_back({.name = "host_memory", .kind = InputKind::quantity, .dim = dims::information,
                      .help = "host memory this device may fill (default with --system: its host memory / accelerators)",
                      .example = "256GB", .optional = true});
  c.inputs.push_back({.name = "overlap", .kind = InputKind::choice,
                      .help = "none: a layer waits for its weights (step = device + link); prefetch: transfers overlap compute (max)",
                      .default_value = "none", .example = "prefetch", .choices = {"none", "prefetch"}});
  c.inputs.push_back({.name = "offload_kv", .kind = InputKind::flag,
                      .help = "let the KV cache spill to host memory too, once every weight is there"});
  c.inputs.push_back({.name = "gpu_hour", .kind = InputKind::quantity, .dim = dims::money_rate,
                      .help = "price of one accelerator-hour, for the cost per token", .example = "$2.50/h",
                      .bound = Bound::non_negative, .optional = true});
  c.outputs = {
      {"memory", dims::information, "memory of one device"},
      {"usable", dims::information, "memory x utilization"},
      {"reserve", dims::information, "activations, framework reserve and communication buffers per device"},
      {"weights_bytes", dims::information, "weight bytes of one device (fit's waterfall)"},
      {"kv_bytes", dims::information, "KV-cache bytes of one device"},
      {"weights_resident", dims::information, "weight bytes held in device memory"},
      {"weights_offloaded", dims::information, "weight bytes held in host memory"},
      {"kv_resident", dims::information, "KV-cache bytes held in device memory"},
      {"kv_offloaded", dims::information, "KV-cache bytes held in host memory"},
      {"resident_bytes", dims::information, "weights and KV in device memory"},
      {"offloaded_bytes", dims::information, "weights and KV in host memory"},
      {"streamed_per_step", dims::information, "bytes crossing the host link each step"},
      {"host_bandwidth", dims::data_rate, "host link bandwidth, one direction"},
      {"device_time", dims::time, "the step on the resident traffic (decode ceiling)"},
      {"link_time", dims::time, "streamed bytes / host bandwidth"},
      {"step_time", dims::time, "time per decode step: device + link, or max with --overlap prefetch"},
      {"tokens_per_second_per_stream", dims::token_rate, "tokens per second one sequence sees"},
      {"tokens_per_second", dims::token_rate, "tokens per second of the whole batch"},
      {"all_hbm_step_time", dims::time, "the step with everything in device memory (decode ceiling)"},
      {"slowdown", dims::none, "step time / the step with everything in device memory"},
      {"cost_per_token", dims::money_per_token, "accelerator-hours per token x --gpu-hour (tp devices)", "$/Mtok"},
      {"all_hbm_cost_per_token", dims::money_per_token, "the same with everything in device memory", "$/Mtok"},
      {"expected_step_time", dims::time, "calibrated device time combined with the link time"},
      {"expected_tokens_per_second", dims::token_rate, "calibrated tokens per second of the whole batch"},
      {"host_memory", dims::information, "host memory this device may fill"},
  };
  c.run = run_offload;
  c.source = __FILE__;
  c.tables = {
      {"links", "the same step over each host link"},
  };
  c.verdicts = {
      {"fits_in_device", "weights and KV fit the device without offloading"},
      {"host_fits", "the offloaded bytes fit host memory"},
  };
  return c;
}

}  // namespace infracalc::decode
