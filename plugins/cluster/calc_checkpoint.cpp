// cluster checkpoint: what a training checkpoint holds and how long each storage tier takes to write it.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "plugins/cluster/cluster_calculators.hpp"
#include "plugins/fit/fit_math.hpp"
#include "plugins/fit/fit_model.hpp"

namespace infracalc::cluster {

namespace {

Bytes b(double v) { return from_base<Bytes>(v); }

void run_checkpoint(Context& ctx) {
  Bytes size = b(0);
  const bool sized = ctx.ref("model") != nullptr || ctx.has("params") || ctx.has("layers");
  if (ctx.has("size")) {
    size = ctx.get<Bytes>("size");
    if (sized) ctx.note("--size replaces the size the model gives");
  } else if (sized) {
    const fit::ResolvedModel m = fit::resolve_model(ctx, false);
    const Bytes w = b(ctx.text("weights_dtype") == "fp32" ? 4.0 : 2.0);
    const bool full = ctx.text("contents") == "full";
    const double hidden = m.arch ? m.arch->hidden_size : 0.0;
    // What a resumable checkpoint keeps: working weights, FP32 master weights and optimizer moments;
    // gradients are recomputed after a restart (ZeRO's 16 B/param less the 2 B of gradients).
    const fit::StatePerParam st = fit::state_per_param(fit::optimizer_of(ctx.text("optimizer")), w, b(0), ctx.text("weights_dtype") != "fp32", hidden);
    const Bytes per = full ? st.weights + st.master + st.moments : st.weights;
    size = m.params * per;
    ctx.set_number("params", m.params);
    ctx.set("bytes_per_param", per);
    ctx.note(full ? fmt::format("checkpoint per parameter: {} weights + {} FP32 master + {} optimizer moments = {} "
                                "(gradients are not saved)",
                                ctx.quote(st.weights), ctx.quote(st.master), ctx.quote(st.moments), ctx.quote(per))
                  : fmt::format("weights only: {} per parameter (enough to serve or fine-tune, not to resume the run exactly)", ctx.quote(per)));
  } else {
    throw UserError{{"missing the checkpoint size", "give --size 1TB, --params 405e9, or --model ID"}};
  }
  ctx.set("checkpoint_size", size);

  Table t{"tiers", "time to write the checkpoint to each tier",
          {{"tier"}, {"id"}, {"writers", dims::none}, {"bandwidth", dims::data_rate}, {"bytes_each", dims::information}, {"time", dims::time}}, {}};
  std::optional<Seconds> fastest;
  auto add = [&](std::string tier, std::string id, double writers, BytesPerSecond bw_each) {
    const Bytes each = size / writers;
    const Seconds time = each / bw_each;
    t.rows.push_back({std::move(tier), std::move(id), Quantity::number(writers), to_quantity(bw_each), to_quantity(each), to_quantity(time)});
    if (!fastest || time < *fastest) fastest = time;
  };

  if (ctx.has("write_bandwidth")) {
    const BytesPerSecond bw = ctx.get<BytesPerSecond>("write_bandwidth");
    ctx.set("write_time", size / bw);
    add("given", "--write-bandwidth", 1, bw);
  }
  const double gpus = ctx.has("gpus") ? static_cast<double>(ctx.integer("gpus")) : 0.0;
  if (gpus > 0) ctx.set("shard_per_gpu", size / gpus);
  // Host memory: every accelerator copies its shard over its own host link at once (asynchronous
  // checkpointing stages here before persisting).
  if (gpus > 0) {
    if (const Entry* g = ctx.ref("gpu")) {
      if (auto link_id = ctx.catalog_text(*g, "host_interconnect")) {
        if (const Entry* link = Catalog::instance().find(*link_id)) {
          if (auto bw = ctx.catalog<BytesPerSecond>(*link, "bandwidth_per_direction")) add("host memory", link->id(), gpus, *bw);
        }
      }
    }
  }
  // Local NVMe: every node writes its share to its own drives.
  if (gpus > 0 && ctx.has("gpus_per_node")) {
    const double per_node = static_cast<double>(ctx.integer("gpus_per_node"));
    const double nodes = std::ceil(gpus / per_node);
    const Entry& drive = Catalog::instance().get(ctx.text("nvme"), {"storage"}, "--nvme");
    if (auto bw = ctx.catalog<BytesPerSecond>(drive, "write_bandwidth")) {
      const double drives = static_cast<double>(ctx.integer("drives_per_node"));
      add(fmt::format("local NVMe ({} per node)", ctx.quote_count(drives)), drive.id(), nodes, drives * *bw);
    }
  }
  const Entry& fs = Catalog::instance().get(ctx.text("filesystem"), {"storage"}, "--filesystem");
  if (auto bw = ctx.catalog<BytesPerSecond>(fs, "write_bandwidth")) add("shared file system", fs.id(), 1, *bw);
  if (const Entry* extra = ctx.ref("storage")) {
    if (auto bw = ctx.catalog<BytesPerSecond>(*extra, "write_bandwidth")) add(extra->text("type").value_or("storage"), extra->id(), 1, *bw);
  }
  if (fastest) ctx.set("fastest_write_time", *fastest);
  ctx.add_table(std::move(t));
  ctx.note("each tier's time = bytes each writer holds / its write bandwidth, all writers at once; the network into a shared "
           "file system and metadata overheads are not modelled, and a drive's peak write rate may be its cache's");
  if (gpus <= 0) ctx.note("give --gpus (and --gpus-per-node, --gpu) for the host-memory and local-NVMe tiers");
}

}  // namespace

Calculator checkpoint_calculator() {
  Calculator c;
  c.name = "checkpoint";
  c.summary = "checkpoint size from parameters and optimizer state, and the time to write it to each storage tier";
  c.description =
      "size = params x (weights + FP32 master + optimizer moments): 2 + 4 + 8 = 14 B per parameter for mixed-precision Adam "
      "(gradients are not saved; --contents weights keeps 2 B). Write time per tier = bytes per writer / write bandwidth: host "
      "memory over each accelerator's host link, local NVMe drives per node, a shared file system's aggregate bandwidth, or "
      "--write-bandwidth. Asynchronous checkpointing stalls training only for the first tier.";
  c.refs = {{"model", {"model"}, "model id: parameter count"},
            {"gpu", {"accelerator"}, "accelerator id: its host link (host-memory tier)"},
            {"storage", {"storage"}, "an extra storage tier to compare"}};
  c.inputs = fit::model_inputs();
  c.inputs.push_back({.name = "size", .kind = InputKind::quantity, .dim = dims::information, .help = "checkpoint size (replaces the model's)",
                      .example = "1TB", .optional = true});
  c.inputs.push_back({.name = "contents", .kind = InputKind::choice, .help = "full (resumable: weights, master, moments) or weights",
                      .default_value = "full", .choices = {"full", "weights"}});
  c.inputs.push_back({.name = "optimizer", .kind = InputKind::choice, .help = "optimizer whose state is saved", .default_value = "adamw",
                      .choices = {"adam", "adamw", "sgd", "adafactor", "adam8bit"}});
  c.inputs.push_back({.name = "weights_dtype", .kind = InputKind::choice, .help = "working weight format", .default_value = "bf16",
                      .choices = {"bf16", "fp16", "fp32"}});
  c.inputs.push_back({.name = "gpus", .kind = InputKind::integer, .help = "accelerators holding shards", .example = "16384", .optional = true});
  c.inputs.push_back({.name = "gpus_per_node", .kind = InputKind::integer, .help = "accelerators per node (local-NVMe tier)",
                      .example = "8", .optional = true});
  c.inputs.push_back({.name = "drives_per_node", .kind = InputKind::integer,
                      .help = "NVMe drives per node taking checkpoint writes (a DGX H100 has 8 internal U.2 data drives)",
                      .default_value = "8"});
  c.inputs.push_back({.name = "nvme", .kind = InputKind::text, .help = "storage id of the local drive", .default_value = "samsung-pm1743"});
  c.inputs.push_back({.name = "filesystem", .kind = InputKind::text, .help = "storage id of the shared file system",
                      .default_value = "tectonic-llama3"});
  c.inputs.push_back({.name = "write_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate,
                      .help = "write bandwidth of a tier of your own (gives write_time)", .example = "50GB/s", .optional = true});
  c.outputs = {
      {"params", dims::none, "parameters"},
      {"bytes_per_param", dims::information, "checkpoint bytes per parameter"},
      {"checkpoint_size", dims::information, "bytes in one checkpoint"},
      {"shard_per_gpu", dims::information, "bytes each accelerator holds when the checkpoint is sharded evenly"},
      {"write_time", dims::time, "checkpoint size / --write-bandwidth"},
      {"fastest_write_time", dims::time, "the fastest tier's write time"},
  };
  c.run = run_checkpoint;
  c.source = __FILE__;
  c.tables = {
      {"tiers", "time to write the checkpoint to each storage tier"},
  };
  return c;
}

}  // namespace infracalc::cluster
