// `kv offload`: where a cache of a given size can live (HBM, host DRAM, CXL memory, NVMe) and what moving
// it costs per token and per request.
#include <cmath>
#include <fmt/format.h>

#include "host/catalog_input.hpp"
#include "plugins/kv/kv_arch.hpp"
#include "plugins/kv/kv_calculators.hpp"
#include "plugins/kv/kv_offload.hpp"
#include "plugins/kv/kv_tier_inputs.hpp"
#include "units/format.hpp"

namespace infracalc::kv {

namespace {

constexpr const char* kTiers[] = {"hbm", "dram", "cxl", "nvme"};

// The least time an accelerator's read of host DRAM or CXL memory takes: the request and the completion cross the
// PCIe (or CXL, on the same PHY) link and the host's root complex, measured at 0.5-1 us for small DMA reads before the
// memory's own access (Neugebauer et al., "Understanding PCIe performance for end host networking", SIGCOMM 2018).
constexpr double kLinkRoundTrip = 1e-6;

// The cache to place, per device: --cache, or the model's at --tokens x --batch; its bytes per token and, with a model,
// the 16-bit weights that share HBM with it.
struct CacheToPlace {
  Bytes bytes;
  std::optional<Bytes> per_token;
  std::optional<Bytes> weights;
};

CacheToPlace resolve_cache(Context& ctx, Number batch) {
  const auto arch = resolve_arch(ctx, false);
  CacheToPlace c;
  if (arch) {
    const KvPrecision prec = resolve_precision(ctx);
    const Parallelism par = resolve_parallel(ctx, *arch);
    c.per_token = cache_size(*arch, prec, from_base<Tokens>(1.0), Number::from_value(1.0), par).per_token_per_device;
    if (!ctx.has("cache")) {
      if (!ctx.has("tokens")) throw UserError{{"missing --tokens (tokens per sequence) to size the cache", "give --tokens 128k or --cache 40GB"}};
      c.bytes = cache_size(*arch, prec, ctx.get<Tokens>("tokens"), batch, par).per_device;
    }
    ctx.note("layout: " + describe(*arch));
    c.weights = from_base<Bytes>(2.0 * count_params(*arch).total / static_cast<double>(par.tp * par.pp));
  }
  if (ctx.has("cache")) {
    c.bytes = ctx.get<Bytes>("cache");
    if (!c.per_token && ctx.has("tokens")) c.per_token = c.bytes / (ctx.get<Tokens>("tokens").value() * batch.value());
  } else if (!arch) {
    throw UserError{{"kv offload needs a cache size", "give --cache 40GB, or --model ID with --tokens 128k"}};
  }
  return c;
}

// The four tiers from their inputs; HBM less what is reserved in it (the model's weights unless --hbm-reserved), with
// notes on implausible figures.
std::vector<Tier> read_tiers(Context& ctx, const std::optional<Bytes>& weights) {
  std::vector<Tier> tiers;
  for (const char* t : kTiers) {
    const std::string n = t;
    Tier tier{n, ctx.get<Bytes>(n + "_capacity"), ctx.get<BytesPerSecond>(n + "_bandwidth"), ctx.get<Seconds>(n + "_latency")};
    if (n == "hbm") {
      // The weights share HBM with the cache: with a model and no --hbm-reserved, they are what is reserved.
      Bytes reserved = ctx.get<Bytes>("hbm_reserved");
      if (weights && ctx.origin("hbm_reserved") != Origin::flag) {
        reserved = *weights;
        ctx.note(fmt::format("HBM for the cache is the capacity less the model's 16-bit weights on this device, {} (give "
                             "--hbm-reserved for another figure, e.g. with activations and quantized weights)",
                             ctx.quote(*weights)));
      }
      if (reserved >= tier.capacity)
        ctx.note(fmt::format("implausible: the {} reserved in HBM (weights) fill the {} device: no HBM is left for the cache; "
                             "split the model over more devices (--tp, --pp)",
                             ctx.quote(reserved), ctx.quote(tier.capacity)));
      tier.capacity = reserved >= tier.capacity ? from_base<Bytes>(0) : tier.capacity - reserved;
    } else if ((n == "dram" || n == "cxl") && tier.latency.value() < kLinkRoundTrip) {
      ctx.note(fmt::format("implausible: --{}-latency {} is the memory's own access time; an accelerator reaches {} over "
                           "PCIe{}, and one read costs the link round trip, at least about 1 us (Neugebauer et al., SIGCOMM "
                           "2018, measured 0.5-1 us for small PCIe reads), so {} is not {}x HBM's latency: give "
                           "--{}-latency 1us or more for the path the accelerator sees",
                           n, ctx.quote(tier.latency), n == "dram" ? "host DRAM" : "CXL memory",
                           n == "cxl" ? " and the CXL link" : "", n,
                           ctx.quote_number((tier.latency / ctx.get<Seconds>("hbm_latency")).value()), n));
    }
    tiers.push_back(tier);
  }
  return tiers;
}

// Each tier: does the cache fit, how long moving it and one token's KV takes, the decode ceiling if every step read the
// whole cache from it; set as outputs and verdicts and added as a table.
void report_tiers(Context& ctx, const std::vector<Tier>& tiers, Bytes cache, const std::optional<Bytes>& per_token, double chunks,
                  Number batch) {
  Table t{"tiers", "where the cache can live and what moving it costs",
          {{"tier"},
           {"capacity", dims::information},
           {"bandwidth", dims::data_rate},
           {"latency", dims::time},
           {"fits"},
           {"move_cache", dims::time},
           {"move_token", dims::time},
           {"read_ceiling", dims::token_rate},
           {"latency_vs_hbm", dims::none}},
          {}};
  for (const auto& tier : tiers) {
    const bool fits = cache <= tier.capacity;
    const Seconds move = transfer_time(tier, cache, chunks);
    ctx.set(tier.name + "_move_time", move);
    std::vector<Cell> row = {tier.name, to_quantity(tier.capacity), to_quantity(tier.bandwidth), to_quantity(tier.latency),
                             std::string(fits ? "yes" : "no"), to_quantity(move)};
    if (per_token) {
      const Seconds tok = transfer_time(tier, *per_token);
      ctx.set(tier.name + "_token_time", tok);
      row.push_back(to_quantity(tok));
    } else {
      row.push_back(std::string("-"));
    }
    // A decode step reads every cached position of every sequence: one step per full read of the cache.
    row.push_back(to_quantity(from_base<TokensPerSecond>(batch.value() / move.value())));
    row.push_back(Quantity::number(tier.latency / tiers[0].latency));
    t.rows.push_back(std::move(row));
    ctx.verdict(tier.name + "_fits", fits,
                fmt::format("{} of {} {}", ctx.quote(cache), ctx.quote(tier.capacity), tier.name));
  }
  ctx.add_table(std::move(t));
}

// Reloading from each tier against prefilling the tokens again at --recompute-rate.
void compare_recompute(Context& ctx, const std::vector<Tier>& tiers, Bytes cache, double chunks, Number batch) {
  if (!ctx.has("tokens")) throw UserError{{"--recompute-rate needs --tokens (tokens to prefill again)", "give --tokens 32k"}};
  const Seconds recompute = ctx.get<Tokens>("tokens") * batch.value() / ctx.get<TokensPerSecond>("recompute_rate");
  ctx.set("recompute_time", recompute);
  for (const auto& tier : tiers)
    if (tier.name != "hbm")
      ctx.note(fmt::format("{}: reloading takes {} vs {} to prefill again: {}", tier.name,
                           ctx.quote(transfer_time(tier, cache, chunks)), ctx.quote(recompute),
                           transfer_time(tier, cache, chunks) < recompute ? "reload" : "recompute"));
}

void run_offload(Context& ctx) {
  const auto batch = Number::from_value(static_cast<double>(ctx.integer("batch")));
  const CacheToPlace placed = resolve_cache(ctx, batch);
  const Bytes cache = placed.bytes;
  const std::optional<Bytes>& per_token = placed.per_token;
  note_device_memory(ctx, "hbm_capacity");
  const std::vector<Tier> tiers = read_tiers(ctx, placed.weights);
  const double chunks = ctx.has("chunk") ? std::ceil(cache / ctx.get<Bytes>("chunk") - 1e-12) : 1.0;
  ctx.set("cache_bytes", cache);
  if (per_token) ctx.set("bytes_per_token", *per_token);

  report_tiers(ctx, tiers, cache, per_token, chunks, batch);
  ctx.set_number("cxl_vs_nvme_latency", tiers[3].latency / tiers[2].latency);
  ctx.set_number("cxl_vs_hbm_latency", tiers[2].latency / tiers[0].latency);
  ctx.set_number("dram_vs_hbm_bandwidth", tiers[0].bandwidth / tiers[1].bandwidth);
  const int best = first_fit(tiers, cache);
  if (best >= 0) ctx.note(fmt::format("fastest tier that holds the cache: {}", tiers[static_cast<std::size_t>(best)].name));
  else ctx.note("no tier holds the cache: add capacity, shard it across devices, or compress it (kv compress)");

  if (ctx.has("recompute_rate")) compare_recompute(ctx, tiers, cache, chunks, batch);
  ctx.note(fmt::format("move = {} x latency + bytes / bandwidth (one transfer{}); read_ceiling = sequences / move time, the decode rate "
                       "if every step read the whole cache from that tier",
                       chunks, ctx.has("chunk") ? fmt::format(" per {} chunk, not overlapped", ctx.quote(ctx.get<Bytes>("chunk"))) : ""));
  ctx.note("defaults: one H100 SXM's HBM and, per GPU, a DGX H100 share of host DRAM over PCIe 5.0 x16, one Micron CZ120 CXL "
           "module and one PCIe 5.0 NVMe drive; every default is sourced in docs/kv.md; latency is the medium's access latency "
           "(link and driver overheads not included)");
}

}  // namespace

Calculator offload_calculator() {
  Calculator c;
  c.name = "offload";
  c.summary = "where a KV cache can live (HBM, host DRAM, CXL, NVMe) and what moving it costs per token and per request";
  c.description =
      "For each tier: does the cache fit its capacity, how long moving it takes (latency + bytes / bandwidth; with --chunk, "
      "one latency per chunk), how long one token's KV takes, and the decode rate if every step read the whole cache from "
      "that tier. The cache is --cache bytes, or a model's cache at --tokens x --batch (per device). With --recompute-rate "
      "the reload is compared with prefilling again. Defaults describe one H100-class GPU; all are flags.";
  c.refs = {model_ref(), {"gpu", {"accelerator"}, "accelerator from the catalog: sets HBM capacity and bandwidth"},
            system_ref("node or rack from the catalog: sets --gpu (its accelerator)")};
  c.inputs = {
      {.name = "cache", .kind = InputKind::quantity, .dim = dims::information, .help = "cache bytes to place (default: the model's at --tokens)",
       .example = "40GB", .optional = true},
      {.name = "tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "tokens per sequence", .example = "128k", .optional = true},
      {.name = "batch", .kind = InputKind::integer, .help = "sequences", .default_value = "1", .example = "8", .most = kMaxBatch, .most_why = kBatchWhy},
      {.name = "chunk", .kind = InputKind::quantity, .dim = dims::information,
       .help = "move the cache in chunks of this size, each paying the latency (default: one transfer)", .example = "64KiB", .optional = true},
      {.name = "recompute_rate", .kind = InputKind::quantity, .dim = dims::token_rate,
       .help = "prefill throughput, to compare reloading with recomputing", .example = "10000 tok/s", .optional = true},
  };
  for (auto& in : tier_inputs()) c.inputs.push_back(in);
  for (auto& in : arch_inputs()) c.inputs.push_back(in);
  for (auto& in : precision_inputs()) c.inputs.push_back(in);
  for (auto& in : parallel_inputs()) c.inputs.push_back(in);
  c.outputs = {
      {"cache_bytes", dims::information, "cache placed (per device)"},
      {"bytes_per_token", dims::information, "cache bytes of one token"},
      {"hbm_move_time", dims::time, "time to move the cache to or from HBM"},
      {"hbm_token_time", dims::time, "time to move one token's KV"},
      {"dram_move_time", dims::time, "time to move the cache from host DRAM"},
      {"dram_token_time", dims::time, "time to move one token's KV from DRAM"},
      {"cxl_move_time", dims::time, "time to move the cache from CXL memory"},
      {"cxl_token_time", dims::time, "time to move one token's KV from CXL memory"},
      {"nvme_move_time", dims::time, "time to move the cache from NVMe"},
      {"nvme_token_time", dims::time, "time to move one token's KV from NVMe"},
      {"cxl_vs_nvme_latency", dims::none, "NVMe latency / CXL latency"},
      {"cxl_vs_hbm_latency", dims::none, "CXL latency / HBM latency"},
      {"dram_vs_hbm_bandwidth", dims::none, "HBM bandwidth / DRAM-link bandwidth"},
      {"recompute_time", dims::time, "time to prefill the tokens again at --recompute-rate"},
  };
  c.run = run_offload;
  c.source = __FILE__;
  c.tables = {
      {"tiers", "where the cache can live and what moving it costs"},
  };
  c.verdicts = {
      {"*_fits", "one per tier (hbm, dram, cxl, nvme): the cache fits its capacity"},
  };
  return c;
}

}  // namespace infracalc::kv
