// cluster collective: steps, bytes per rank and alpha-beta time of one collective, and what each other
// algorithm (and a switch that reduces in the network) would do with the same buffer.
#include <fmt/format.h>

#include "plugins/cluster/cluster_calculators.hpp"
#include "plugins/cluster/collectives.hpp"
#include "host/words.hpp"

namespace infracalc::cluster {

namespace {

void run_collective(Context& ctx) {
  const CollectiveOp op = *parse_op(ctx.text("op"));
  const CollectiveAlgo algo = *parse_algo(ctx.text("algo"));
  const Bytes size = ctx.get<Bytes>("bytes");
  const std::int64_t ranks = ctx.integer("ranks");
  if (ranks < 2) throw UserError{{fmt::format("--ranks {}: a collective needs 2 ranks or more", ranks), "e.g. --ranks 8"}};

  LinkModel link{from_base<Seconds>(0), from_base<BytesPerSecond>(0)};
  std::string type = "nvlink";
  const Entry* l = ctx.ref("link");
  if (ctx.has("bandwidth")) link.beta = ctx.get<BytesPerSecond>("bandwidth");
  else if (l) {
    auto bw = ctx.catalog<BytesPerSecond>(*l, "bandwidth_per_direction");
    if (!bw) throw UserError{{l->id() + " gives no bandwidth_per_direction", "give --bandwidth 50GB/s"}};
    link.beta = *bw;
  } else {
    throw UserError{{"missing the link bandwidth", "give --link ID (e.g. nvlink-4, infiniband-ndr) or --bandwidth 450GB/s"}};
  }
  if (l) type = l->text("type").value_or("nvlink");
  if (ctx.has("latency")) {
    link.alpha = ctx.get<Seconds>("latency");
  } else if (l && l->field("latency")) {
    link.alpha = *ctx.catalog<Seconds>(*l, "latency");
  } else {
    link.alpha = default_step_latency(type);
    ctx.note(fmt::format("latency per step {}: NCCL's tuning model for {} hop (src/graph/tuning.cc, ring, Simple protocol); "
                         "give --latency to override",
                         ctx.quote(link.alpha),
                         with_article(type == "pcie" || type == "cxl"                 ? "PCIe"
                                      : type == "infiniband" || type == "ethernet" ? "network"
                                                                                   : "NVLink-class")));
  }
  ctx.set("bandwidth", link.beta);
  ctx.set("latency", link.alpha);

  const CollectiveCost c = collective_cost(op, algo, size, ranks, link);
  ctx.set_number("steps", static_cast<double>(c.steps));
  ctx.set("sent_per_rank", c.sent_per_rank);
  ctx.set("received_per_rank", c.received_per_rank);
  ctx.set("wire_total", c.wire_total);
  ctx.set("time", c.time);
  ctx.set("latency_term", static_cast<double>(c.steps) * link.alpha);
  ctx.set("bandwidth_term", c.time - static_cast<double>(c.steps) * link.alpha);
  ctx.set("algbw", c.algbw);
  ctx.set("busbw", c.busbw);

  Table t{"algorithms", fmt::format("{} of {} on {} ranks, every algorithm", op_name(op), ctx.quote(size), ranks),
          {{"algorithm"}, {"steps", dims::none}, {"sent_per_rank", dims::information}, {"time", dims::time}, {"busbw", dims::data_rate}}, {}};
  std::optional<CollectiveCost> ring, innet;
  for (CollectiveAlgo a : {CollectiveAlgo::ring, CollectiveAlgo::tree, CollectiveAlgo::in_network}) {
    try {
      const CollectiveCost x = collective_cost(op, a, size, ranks, link);
      if (a == CollectiveAlgo::ring) ring = x;
      if (a == CollectiveAlgo::in_network) innet = x;
      t.rows.push_back({std::string(algo_name(a)), Quantity::number(static_cast<double>(x.steps)), to_quantity(x.sent_per_rank),
                        to_quantity(x.time), to_quantity(x.busbw)});
    } catch (const UserError&) {
      if (a == algo) throw;
      t.rows.push_back({std::string(algo_name(a)) + " (not applicable)", Quantity::number(0), Quantity{0, dims::information},
                        Quantity{0, dims::time}, Quantity{0, dims::data_rate}});
    }
  }
  ctx.add_table(std::move(t));
  if (ring && innet) {
    ctx.set("in_network_bytes_saved", ring->sent_per_rank - innet->sent_per_rank);
    ctx.set_number("in_network_time_saving", 1.0 - (innet->time / ring->time).value());
  }
  switch (op) {
    case CollectiveOp::allreduce:
      ctx.note(fmt::format("ring all-reduce: 2(P - 1) = {} steps, each rank sends 2(P - 1)/P x S = {}; in-network reduction "
                           "sends S once and receives the sum once",
                           2 * (ranks - 1), ctx.quote(2.0 * (ranks - 1) / ranks * size)));
      break;
    case CollectiveOp::allgather:
      ctx.note("all-gather: --bytes is the gathered output on each rank; each contributes bytes / P");
      break;
    case CollectiveOp::reducescatter:
      ctx.note("reduce-scatter: --bytes is the input on each rank; each ends with bytes / P reduced");
      break;
    case CollectiveOp::alltoall:
      ctx.note("all-to-all: --bytes is what each rank holds; it keeps bytes / P and sends bytes / P to every other rank");
      break;
  }
  ctx.note("time = steps x latency + the busiest rank's bytes / bandwidth (tree all-reduce: each of its 2 ceil(log2 P) rounds moves "
           "the whole buffer); no congestion, no protocol overhead, one link per rank; for a group that spans nodes, cost each "
           "level with its own link");
}

}  // namespace

Calculator collective_calculator() {
  Calculator c;
  c.name = "collective";
  c.summary = "all-reduce, all-gather, reduce-scatter and all-to-all: steps, bytes per rank, alpha-beta time, in-network savings";
  c.description =
      "Alpha-beta model: time = steps x alpha + bytes / beta. Ring all-reduce: 2(P - 1) steps of S/P, 2(P - 1)/P x S per rank "
      "(Patarasuk and Yuan 2009); ring all-gather and reduce-scatter: P - 1 steps, (P - 1)/P x S. Tree all-reduce: binomial "
      "reduce then broadcast, 2 ceil(log2 P) rounds of S; tree all-gather/reduce-scatter: recursive doubling/halving; tree "
      "all-to-all: Bruck. In-network (SHARP): each rank sends S once and receives once, 2 steps. Bus bandwidth as nccl-tests "
      "reports it. Bandwidth from --link's bandwidth_per_direction; latency per step from NCCL's tuning model unless given.";
  c.refs = {{"link", {"interconnect"}, "interconnect id: bandwidth per direction per rank (nvlink-4, infiniband-ndr, ethernet-400g)"}};
  c.inputs = {
      {.name = "op", .kind = InputKind::choice, .help = "the collective", .default_value = "allreduce",
       .choices = {"allreduce", "allgather", "reducescatter", "alltoall"}},
      {.name = "algo", .kind = InputKind::choice, .help = "ring, tree, or in-network (switch reduction, SHARP-style)",
       .default_value = "ring", .choices = {"ring", "tree", "in-network"}},
      {.name = "bytes", .kind = InputKind::quantity, .dim = dims::information, .help = "buffer size S (see the op's note)", .example = "1GB"},
      {.name = "ranks", .kind = InputKind::integer, .help = "ranks P taking part", .example = "8"},
      {.name = "bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate,
       .help = "one rank's link bandwidth, one direction (default: --link bandwidth_per_direction)", .example = "450GB/s", .optional = true},
      {.name = "latency", .kind = InputKind::quantity, .dim = dims::time,
       .help = "latency per step (default: the link's, or NCCL's per-hop figure for its type)", .example = "5us", .bound = Bound::non_negative,
       .optional = true},
  };
  c.outputs = {
      {"bandwidth", dims::data_rate, "link bandwidth per rank, one direction"},
      {"latency", dims::time, "latency per step"},
      {"steps", dims::none, "sequential steps"},
      {"sent_per_rank", dims::information, "bytes the busiest rank sends"},
      {"received_per_rank", dims::information, "bytes the busiest rank receives"},
      {"wire_total", dims::information, "bytes all ranks send together"},
      {"time", dims::time, "alpha-beta time"},
      {"latency_term", dims::time, "steps x latency"},
      {"bandwidth_term", dims::time, "time spent moving bytes"},
      {"algbw", dims::data_rate, "bytes / time (nccl-tests algbw)"},
      {"busbw", dims::data_rate, "algbw x the op's bus factor (nccl-tests busbw)"},
      {"in_network_bytes_saved", dims::information, "bytes per rank in-network reduction saves against a ring"},
      {"in_network_time_saving", dims::none, "share of the ring's time in-network reduction saves"},
  };
  c.run = run_collective;
  c.source = __FILE__;
  c.tables = {
      {"algorithms", "the same collective under every algorithm"},
  };
  return c;
}

}  // namespace infracalc::cluster
