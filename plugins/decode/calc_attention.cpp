// `decode attention`: attention arithmetic (4·N²·d) and the HBM traffic of a naive implementation
// against a tiled, online-softmax one (FlashAttention) for a given on-chip memory.
#include <algorithm>
#include <fmt/format.h>

#include "catalog/model_arch.hpp"
#include "host/context.hpp"
#include "plugins/decode/decode_attention.hpp"
#include "plugins/decode/decode_calculators.hpp"
#include "plugins/decode/decode_inputs.hpp"
#include "plugins/formats/storage.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::decode {

namespace {

int count_or(Context& ctx, std::string_view key, int fallback) {
  if (!ctx.has(key)) return fallback;
  return ctx.count(key);  // the host checked it against the declared bound
}

void calculate_attention(Context& ctx) {
  const Tokens n = ctx.get<Tokens>("tokens");
  const int heads = count_or(ctx, "heads", 1);
  const int kv_heads = count_or(ctx, "kv_heads", heads);
  const int layers = count_or(ctx, "layers", 1);
  int head_dim = count_or(ctx, "head_dim", 0);
  if (ctx.has("hidden_size")) {
    const int hidden = count_or(ctx, "hidden_size", 1);
    if (head_dim == 0) {
      if (!ctx.has("heads")) throw UserError{{"--hidden-size alone does not give the head width", "give --heads too, or --head-dim"}};
      if (hidden % heads != 0)
        throw UserError{{fmt::format("--hidden-size {} is not a multiple of --heads {}", hidden, heads), "give --head-dim"}};
      head_dim = hidden / heads;
      ctx.note(fmt::format("head_dim = hidden_size / heads = {} / {} = {}", hidden, heads, head_dim));
    } else if (hidden != heads * head_dim) {
      ctx.note(fmt::format("heads x head_dim = {} differs from hidden_size {}: attention is narrower or wider than the residual stream",
                           heads * head_dim, hidden));
    }
  }
  if (head_dim == 0) throw UserError{{"missing --head-dim (width of one attention head)", "give --head-dim 128, or --hidden-size and --heads, or --model ID"}};
  if (kv_heads > heads || heads % kv_heads != 0)
    throw UserError{{fmt::format("--kv-heads {} must divide --heads {}", kv_heads, heads), "in GQA each KV head serves the same number of query heads"}};
  const StorageFormat& fmt_ = *find_storage_format(ctx.text("dtype"));
  AttentionShape s{n.value(), head_dim, ctx.flag("causal"), bytes_per_value(fmt_)};
  const bool windowed = ctx.has("window");
  const Flops per_head = windowed ? windowed_attention_flops(s, ctx.get<Tokens>("window").value()) : attention_flops(s);
  const Flops per_layer = static_cast<double>(heads) * per_head;
  const Flops total = static_cast<double>(layers) * per_layer;
  ctx.set_number("head_dim", head_dim);
  ctx.set("prefill_flops_per_head", per_head);
  ctx.set("prefill_flops_per_layer", per_layer);
  ctx.set("prefill_flops", total);
  // Decoding one token at context N: the new query against N cached keys, per query head.
  const double attended = windowed ? std::min(n.value(), ctx.get<Tokens>("window").value()) : n.value();
  const Flops decode = from_base<Flops>(4.0 * head_dim * attended * heads * layers);
  const Bytes decode_kv = 2.0 * attended * kv_heads * head_dim * static_cast<double>(layers) * s.element;
  ctx.set("decode_flops_per_token", decode);
  ctx.set("decode_kv_bytes_per_token", decode_kv);
  if (decode_kv.value() > 0) ctx.set("decode_intensity", decode / decode_kv);
  const Bytes naive = naive_attention_traffic(s);
  ctx.set("naive_traffic", naive);
  ctx.set("naive_scores_bytes", n.value() * n.value() * s.element);
  const double heads_layers = static_cast<double>(heads) * layers;
  std::optional<Bytes> flash;
  if (ctx.has("sram")) {
    const Bytes sram = ctx.get<Bytes>("sram");
    const int block = flash_block_rows(s, sram);
    if (block == 0)
      throw UserError{{fmt::format("--sram {} cannot hold even one row of Q, K, V and O at head_dim {}", ctx.quote(sram), head_dim),
                       "give a larger on-chip memory"}};
    flash = flash_attention_traffic(s, block);
    ctx.set_number("flash_block_rows", block);
    ctx.set("flash_traffic", *flash);
    ctx.set_number("traffic_ratio", (naive / *flash).value());
    ctx.note(fmt::format("tiles of {} queries x {} keys: Q, K, V and O tiles, the score tile and the running max and sum fit in {}",
                         block, block, ctx.quote(sram)));
  } else {
    ctx.note("no --sram: FlashAttention traffic needs the on-chip memory per processor (e.g. 228KiB of shared memory per H100 SM)");
  }
  const Roof roof = [&] {
    if (!ctx.has("bandwidth") && !ctx.has("peak") && ctx.ref("gpu") == nullptr) return Roof{};
    return resolve_roof(ctx, false, false);
  }();
  if (roof.peak) {
    ctx.set("achieved_rate", *roof.peak);
    ctx.set("prefill_compute_time", total / *roof.peak);
  }
  if (roof.bandwidth.value() > 0) {
    ctx.set("naive_memory_time", heads_layers * naive / roof.bandwidth);
    if (flash) ctx.set("flash_memory_time", heads_layers * *flash / roof.bandwidth);
  }
  ctx.note(s.causal ? "causal: only query-key pairs at or before each query are computed (2 d N(N+1) per head)"
                    : "4 N^2 d per head: QK^T and PV, d multiply-adds each per query-key pair, no causal halving (--causal halves it)");
  ctx.note("traffic figures are per head per layer, in the element format of --dtype; softmax exponentials and scaling are not counted as operations");
  if (windowed) ctx.note("sliding window: each query sees at most --window keys, so cost grows as N x w instead of N^2 (traffic figures ignore the window)");
}

}  // namespace

Calculator attention_calculator() {
  Calculator c;
  c.name = "attention";
  c.summary = "attention operations (4 N^2 d) and naive vs FlashAttention HBM traffic";
  c.description =
      "Per head: 4 N^2 d operations for a full prefill (2 d N(N+1) with --causal), 4 N d per decoded token at context N. "
      "Naive HBM traffic: (4 N d + 4 N^2) elements (Q, K read; S written and read; P written and read; V read; O written). "
      "Tiled with an online softmax (FlashAttention-2 loop order) and b-row tiles that fit --sram: 2 N d + 2 d N ceil(N/b) "
      "elements, the N x N scores never leaving the chip. With --gpu/--peak and --mfu: achieved rate and time.";
  c.refs = {{"model", {"model"}, "model id from the catalog: sets heads, KV heads, head width and layers"},
            {"gpu", {"accelerator"}, "accelerator id from the catalog: sets bandwidth and peak"}};
  std::vector<Input> device;
  for (auto& in : device_inputs(false))
    if (in.name != "overhead") device.push_back(in);
  c.inputs = join(
      {
          {.name = "tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "sequence length N", .example = "8k"},
          {.name = "head_dim", .kind = InputKind::integer, .help = "width of one head d (default: hidden size / heads)",
           .example = "128", .catalog = "model.head_dim", .optional = true, .most = kMaxHeadDim, .most_why = kModelLimitWhy},
          {.name = "heads", .kind = InputKind::integer, .help = "query heads per layer (default 1: per-head figures)", .example = "64",
           .catalog = "model.attention_heads", .optional = true, .most = kMaxHeads, .most_why = kModelLimitWhy},
          {.name = "kv_heads", .kind = InputKind::integer, .help = "key/value heads per layer (default: as many as query heads)",
           .example = "8", .catalog = "model.kv_heads", .optional = true, .most = kMaxHeads, .most_why = kModelLimitWhy},
          {.name = "layers", .kind = InputKind::integer, .help = "layers (default 1)", .example = "80", .catalog = "model.layers",
           .optional = true, .most = kMaxLayers, .most_why = kModelLimitWhy},
          {.name = "hidden_size", .kind = InputKind::integer, .help = "model width, to derive the head width", .example = "8192",
           .catalog = "model.hidden_size", .optional = true, .most = kMaxWidth, .most_why = kModelLimitWhy},
          {.name = "dtype", .kind = InputKind::choice, .help = "storage format of Q, K, V, O and the score matrices",
           .default_value = "fp16", .example = "bf16", .choices = storage_format_names()},
          {.name = "sram", .kind = InputKind::quantity, .dim = dims::information,
           .help = "on-chip memory one tile may use (shared memory per SM on NVIDIA GPUs)", .example = "228KiB", .optional = true},
          {.name = "causal", .kind = InputKind::flag, .help = "apply a causal mask: only keys at or before each query"},
          {.name = "window", .kind = InputKind::quantity, .dim = dims::token, .help = "sliding window: keys each query sees at most",
           .example = "4k", .optional = true},
      },
      device);
  c.outputs = {
      {"head_dim", dims::none, "width of one head"},
      {"prefill_flops_per_head", dims::flop, "attention operations of one head over the whole sequence"},
      {"prefill_flops_per_layer", dims::flop, "the same for all heads of a layer"},
      {"prefill_flops", dims::flop, "the same for all layers"},
      {"decode_flops_per_token", dims::flop, "attention operations for one new token at context N, all heads and layers"},
      {"decode_kv_bytes_per_token", dims::information, "KV bytes that token reads, all layers"},
      {"decode_intensity", dims::intensity, "operations per KV byte in decode attention: 2 x (heads / KV heads) / element bytes"},
      {"naive_traffic", dims::information, "HBM bytes of the naive implementation, per head per layer"},
      {"naive_scores_bytes", dims::information, "the N x N score matrix the naive implementation stores, per head"},
      {"flash_block_rows", dims::none, "queries (and keys) per tile that fit --sram"},
      {"flash_traffic", dims::information, "HBM bytes of the tiled online-softmax kernel, per head per layer"},
      {"traffic_ratio", dims::none, "naive traffic / FlashAttention traffic"},
      {"achieved_rate", dims::flop_rate, "arithmetic rate after --mfu"},
      {"prefill_compute_time", dims::time, "prefill attention operations / achieved rate"},
      {"naive_memory_time", dims::time, "naive traffic of all heads and layers / bandwidth"},
      {"flash_memory_time", dims::time, "FlashAttention traffic of all heads and layers / bandwidth"},
  };
  c.run = calculate_attention;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc::decode
