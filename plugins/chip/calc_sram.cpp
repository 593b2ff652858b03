// `chip sram`: a model held in on-chip SRAM across chips (GroqRack), and the decode rate the SRAM's
// bandwidth allows against an HBM GPU.
#include <cmath>
#include <fmt/format.h>

#include "plugins/chip/chip_math.hpp"
#include "plugins/chip/chip_calculators.hpp"
#include "host/catalog_input.hpp"
#include "host/context.hpp"
#include "units/counts.hpp"
#include "plugins/fit/fit_math.hpp"
#include "plugins/fit/fit_model.hpp"
#include "plugins/kv/kv_layout.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {


// KV tokens the SRAM left over holds, when the model's architecture is known: headroom / KV bytes per token.
void kv_headroom(Context& ctx, const ModelArch& arch, Bytes headroom) {
  const StorageFormat& kv_dtype = storage_format_of(ctx.text("kv_dtype"), "--kv-dtype");
  const kv::CacheSize one = kv::cache_size(arch, kv_dtype, from_base<Tokens>(1.0), Number::from_value(1.0));
  if (one.per_token.value() <= 0) return;
  const double tokens = headroom.value() > 0 ? std::floor(headroom / one.per_token) : 0.0;
  ctx.set("kv_per_token", one.per_token / from_base<Tokens>(1.0));
  ctx.set("kv_tokens", from_base<Tokens>(tokens));
  ctx.note(fmt::format("kv_tokens = floor({} headroom / {} of {} KV per token), across all sequences; sliding windows and "
                       "activations ignored",
                       ctx.quote(headroom, "MB"), ctx.quote(one.per_token), kv_dtype.name));
}

void run_sram(Context& ctx) {
  const fit::ResolvedModel m = fit::resolve_model(ctx, false);
  fill_weight_format(ctx, "dtype");
  const StorageFormat& dtype = storage_format_of(ctx.text("dtype"), "--dtype");
  const Bytes weights = fit::weight_bytes(m.params, m.experts, dtype, dtype);
  const auto sram = ctx.get<Bytes>("sram");
  const std::int64_t min_chips = fit::min_devices(weights, sram, "--sram");
  const std::int64_t per_rack = count_product(ctx.integer("chips_per_node"), ctx.integer("nodes_per_rack"),
                                              {"--chips-per-node", "chips per rack", "give fewer chips per node or nodes per rack"});
  const std::int64_t chips = ctx.has("chips") ? ctx.integer("chips") : min_chips;
  const Bytes total = static_cast<double>(chips) * sram;
  ctx.set_number("params", m.params);
  ctx.set("weights", weights);
  ctx.set_number("min_chips", static_cast<double>(min_chips));
  ctx.set_number("chips", static_cast<double>(chips));
  ctx.set_number("chips_per_rack", static_cast<double>(per_rack));
  ctx.set_number("racks", static_cast<double>(whole_count(static_cast<double>(chips) / static_cast<double>(per_rack),
                                                          Rounding::up, {"--chips", "racks", "give fewer chips"})));
  ctx.set("total_sram", total);
  ctx.set("headroom", total - weights);
  ctx.note(fmt::format("min_chips = ceil({} / {} per chip): weights only, evenly sharded; racks round up to whole racks of {}",
                       ctx.quote(weights), ctx.quote(sram, "MB"), per_rack));
  if (m.arch) kv_headroom(ctx, *m.arch, total - weights);
  if (ctx.has("chips")) {
    const bool fits = weights <= total;
    ctx.verdict("fits", fits,
                fmt::format("weights {} {} of SRAM on {} chips; the {} left must hold the KV cache and activations",
                            fits ? "fit in" : "exceed", ctx.quote(total), chips, ctx.quote(total - weights)));
  }

  const BytesPerToken per_token = weights / from_base<Tokens>(1.0);
  const auto hbm = ctx.get<BytesPerSecond>("hbm_bandwidth");
  const TokensPerSecond hbm_ceiling = chip::decode_ceiling(hbm, per_token);
  ctx.set("hbm_decode_ceiling", hbm_ceiling);
  if (!ctx.has("sram_bandwidth")) {
    ctx.note("no SRAM bandwidth: give --sram-bandwidth (or --gpu ID with one) for the decode comparison");
    return;
  }
  const auto chip_bw = ctx.get<BytesPerSecond>("sram_bandwidth");
  const BytesPerSecond aggregate = static_cast<double>(chips) * chip_bw;
  ctx.set("aggregate_sram_bandwidth", aggregate);
  ctx.set("decode_ceiling", chip::decode_ceiling(aggregate, per_token));
  ctx.set("pipeline_decode_ceiling", chip::decode_ceiling(chip_bw, per_token));
  ctx.set_number("bandwidth_ratio", aggregate / hbm);
  ctx.set_number("bandwidth_orders", chip::orders_of_magnitude(aggregate, hbm));
  ctx.note(fmt::format("decode_ceiling = {} aggregate SRAM bandwidth / {} per token: every chip reads its share of the weights "
                       "at once (tensor-parallel); a layer pipeline reads one chip at a time, {} / {} per token "
                       "(pipeline_decode_ceiling). Both ignore KV reads, chip-to-chip hops and compute",
                       ctx.quote(aggregate), ctx.quote(weights), ctx.quote(chip_bw), ctx.quote(weights)));
  ctx.note(fmt::format("HBM: {} / {} per token = {}; SRAM/HBM = 10^{}", ctx.quote(hbm), ctx.quote(weights), ctx.quote(hbm_ceiling),
                       ctx.quote_number(chip::orders_of_magnitude(aggregate, hbm))));
}

}  // namespace

Calculator chip_sram_calculator() {
  Calculator c;
  c.name = "sram";
  c.summary = "a model held in on-chip SRAM: chips and racks needed, headroom, and the decode rate SRAM bandwidth allows vs HBM";
  c.description =
      "chips = ceil(weight bytes / SRAM per chip); racks = ceil(chips / (chips per node x nodes per rack)) (GroqRack: 9 "
      "GroqNodes x 8 chips = 72; 220 MiB = 230.7 MB of SRAM per GroqChip, so 72 chips hold 16.6 GB: a 7B FP16 model, "
      "14 GB, leaves 2.6 GB for KV). Decode ceiling = bandwidth / weight bytes per token, for the aggregate SRAM "
      "bandwidth of the chips, one chip's (a layer pipeline), and an HBM GPU's (default H100 SXM, 3.35 TB/s); "
      "orders = log10(SRAM / HBM). Ignores KV reads, chip-to-chip links and compute.";
  c.refs = {{"model", {"model"}, "model id: parameter count and native format"},
            {"gpu", {"accelerator"}, "the SRAM chip: SRAM per chip and its bandwidth (groq-lpu)"},
            {"vs", {"accelerator"}, "the HBM accelerator to compare with (h100-sxm)"}};
  c.inputs = fit::model_inputs();
  c.inputs.push_back({.name = "dtype", .kind = InputKind::choice,
                      .help = "weight storage format (default: the model's native checkpoint format, else bf16)", .example = "fp16",
                      .choices = storage_format_names(), .optional = true});
  c.inputs.push_back({.name = "kv_dtype", .kind = InputKind::choice, .help = "KV cache format, for the tokens the headroom holds",
                      .default_value = "bf16", .choices = storage_format_names()});
  c.inputs.push_back({.name = "sram", .kind = InputKind::quantity, .dim = dims::information, .help = "SRAM per chip",
                      .example = "230MB", .catalog = "gpu.sram"});
  c.inputs.push_back({.name = "chips", .kind = InputKind::integer, .help = "chips deployed (default: the minimum that holds the weights)",
                      .example = "72", .optional = true});
  c.inputs.push_back({.name = "chips_per_node", .kind = InputKind::integer, .help = "chips per node (GroqNode: 8)",
                      .default_value = "8", .most = 1'000'000});
  c.inputs.push_back({.name = "nodes_per_rack", .kind = InputKind::integer, .help = "nodes per rack (GroqRack: 9)",
                      .default_value = "9", .most = 1'000'000});
  c.inputs.push_back({.name = "sram_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate,
                      .help = "SRAM bandwidth of one chip", .example = "80TB/s", .catalog = "gpu.sram_bandwidth", .optional = true});
  c.inputs.push_back({.name = "hbm_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate,
                      .help = "HBM bandwidth of the GPU compared with (default: H100 SXM datasheet, 3.35 TB/s)",
                      .default_value = "3.35TB/s", .catalog = "vs.memory_bandwidth"});
  c.outputs = {
      {"params", dims::none, "parameters"},
      {"weights", dims::information, "weight bytes", "GB"},
      {"min_chips", dims::none, "chips whose SRAM holds the weights: ceil(weights / SRAM per chip)"},
      {"chips", dims::none, "chips deployed (--chips, else min_chips)"},
      {"chips_per_rack", dims::none, "chips per node x nodes per rack"},
      {"racks", dims::none, "racks for the chips, rounded up"},
      {"total_sram", dims::information, "SRAM of the chips deployed", "GB"},
      {"headroom", dims::information, "SRAM left for KV cache and activations (negative: does not fit)", "GB"},
      {"kv_per_token", dims::bytes_per_token, "KV cache bytes per token (with --model or the architecture flags)"},
      {"kv_tokens", dims::token, "KV cache tokens the headroom holds, across all sequences"},
      {"hbm_decode_ceiling", dims::token_rate, "single-stream decode ceiling on the HBM GPU: HBM bandwidth / weight bytes"},
      {"aggregate_sram_bandwidth", dims::data_rate, "SRAM bandwidth of all chips deployed", "PB/s"},
      {"decode_ceiling", dims::token_rate, "decode ceiling with every chip reading its share at once: aggregate / weight bytes"},
      {"pipeline_decode_ceiling", dims::token_rate, "decode ceiling of a layer pipeline: one chip's bandwidth / weight bytes"},
      {"bandwidth_ratio", dims::none, "aggregate SRAM bandwidth / HBM bandwidth"},
      {"bandwidth_orders", dims::none, "log10 of bandwidth_ratio: orders of magnitude"},
  };
  c.run = run_sram;
  c.source = __FILE__;
  c.verdicts = {
      {"fits", "the weights fit in the chips' combined SRAM"},
  };
  return c;
}

}  // namespace infracalc
