#include "plugins/cluster/collectives.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "units/expected.hpp"

namespace infracalc::cluster {

namespace {

Bytes b(double v) { return from_base<Bytes>(v); }

bool power_of_two(std::int64_t p) { return p > 0 && (p & (p - 1)) == 0; }

// Blocks Bruck's all-to-all moves in round k: the rotated block indices j in [0, P) with bit k set
// (Bruck et al. 1997, "Efficient algorithms for all-to-all communications in multiport message-passing systems").
std::int64_t bruck_blocks(std::int64_t ranks, int k) {
  std::int64_t n = 0;
  for (std::int64_t j = 0; j < ranks; ++j)
    if ((j >> k) & 1) ++n;
  return n;
}

}  // namespace

int ceil_log2(std::int64_t p) {
  int l = 0;
  while ((std::int64_t{1} << l) < p) ++l;
  return l;
}

int binomial_children(std::int64_t rank, std::int64_t ranks) {
  // Rank r's parent is r with its lowest set bit cleared; its children are r + 2^k for 2^k below that bit.
  const int top = rank == 0 ? ceil_log2(ranks) : __builtin_ctzll(static_cast<unsigned long long>(rank));
  int n = 0;
  for (int k = 0; k < top; ++k)
    if (rank + (std::int64_t{1} << k) < ranks) ++n;
  return n;
}

double bus_factor(CollectiveOp op, std::int64_t ranks) {
  const double p = static_cast<double>(ranks);
  if (ranks <= 1) return 0.0;
  return op == CollectiveOp::allreduce ? 2.0 * (p - 1) / p : (p - 1) / p;
}

CollectiveCost collective_cost(CollectiveOp op, CollectiveAlgo algo, Bytes size, std::int64_t ranks, const LinkModel& link) {
  if (ranks < 1) throw UserError{{fmt::format("--ranks {}: a collective needs at least one rank", ranks), "give --ranks 2 or more"}};
  if (size.value() < 0) throw UserError{{"--bytes: the buffer size cannot be negative", ""}};
  CollectiveCost c;
  c.sent_per_rank = b(0);
  c.received_per_rank = b(0);
  c.wire_total = b(0);
  c.time = from_base<Seconds>(0);
  c.algbw = from_base<BytesPerSecond>(0);
  c.busbw = from_base<BytesPerSecond>(0);
  if (ranks == 1) return c;  // nothing moves

  const double s = size.value();
  const double p = static_cast<double>(ranks);
  const double chunk = s / p;
  const double alpha = link.alpha.value();
  const double beta = link.beta.value();
  const int lg = ceil_log2(ranks);
  double sent = 0, recv = 0, wire = 0, time = 0;
  std::int64_t steps = 0;

  switch (algo) {
    case CollectiveAlgo::ring:
      // Ring all-reduce = reduce-scatter (P-1 steps) + all-gather (P-1 steps), S/P per step (Patarasuk and Yuan
      // 2009); all-gather, reduce-scatter and pairwise all-to-all are P-1 steps of S/P.
      steps = op == CollectiveOp::allreduce ? 2 * (ranks - 1) : ranks - 1;
      sent = recv = static_cast<double>(steps) * chunk;
      wire = p * sent;
      time = static_cast<double>(steps) * (alpha + chunk / beta);
      break;
    case CollectiveAlgo::tree:
      switch (op) {
        case CollectiveOp::allreduce: {
          // Binomial-tree reduce to rank 0, then binomial broadcast: ceil(log2 P) rounds each, the whole buffer
          // per message, one message per rank per round (Thakur, Rabenseifner and Gropp 2005).
          steps = 2 * lg;
          double busiest_send = 0, busiest_recv = 0;
          for (std::int64_t r = 0; r < ranks; ++r) {
            const int kids = binomial_children(r, ranks);
            const double up = r == 0 ? 0.0 : 1.0;  // reduce: send to parent; broadcast: receive from parent
            busiest_send = std::max(busiest_send, (up + kids) * s);
            busiest_recv = std::max(busiest_recv, (kids + up) * s);
          }
          sent = busiest_send;
          recv = busiest_recv;
          wire = 2.0 * (p - 1) * s;
          time = static_cast<double>(steps) * (alpha + s / beta);
          break;
        }
        case CollectiveOp::allgather:
        case CollectiveOp::reducescatter:
          // Recursive doubling (all-gather) and recursive halving (reduce-scatter): log2 P rounds moving
          // S/P, 2S/P, ... S/2: (P-1)/P S in all, as a ring, in log2 P steps instead of P-1.
          if (!power_of_two(ranks))
            throw UserError{{fmt::format("--algo tree: recursive {} needs a power-of-two rank count, got {}",
                                         op == CollectiveOp::allgather ? "doubling" : "halving", ranks),
                             "use --algo ring, or a power-of-two --ranks"}};
          steps = lg;
          sent = recv = (p - 1) * chunk;
          wire = p * sent;
          time = static_cast<double>(steps) * alpha + sent / beta;
          break;
        case CollectiveOp::alltoall:
          // Bruck: round k moves every block whose rotated index has bit k set.
          steps = lg;
          for (int k = 0; k < lg; ++k) {
            const double bytes = static_cast<double>(bruck_blocks(ranks, k)) * chunk;
            sent += bytes;
            time += alpha + bytes / beta;
          }
          recv = sent;
          wire = p * sent;
          break;
      }
      break;
    case CollectiveAlgo::in_network:
      // The switch reduces (or multicasts) in flight: each rank injects its data once and receives the result
      // once; up and down streams overlap on full-duplex links (SHARP: Graham et al. 2016).
      steps = 2;
      switch (op) {
        case CollectiveOp::allreduce: sent = s; recv = s; break;
        case CollectiveOp::allgather: sent = chunk; recv = (p - 1) * chunk; break;
        case CollectiveOp::reducescatter: sent = (p - 1) * chunk; recv = chunk; break;
        case CollectiveOp::alltoall:
          throw UserError{{"--algo in-network: switches reduce and multicast; an all-to-all has nothing to reduce",
                           "use --algo ring (pairwise exchange) or --algo tree (Bruck)"}};
      }
      wire = p * sent;
      time = 2.0 * alpha + std::max(sent, recv) / beta;
      break;
  }
  c.steps = steps;
  c.sent_per_rank = b(sent);
  c.received_per_rank = b(recv);
  c.wire_total = b(wire);
  c.time = from_base<Seconds>(time);
  if (time > 0) {
    c.algbw = from_base<BytesPerSecond>(s / time);
    c.busbw = from_base<BytesPerSecond>(s / time * bus_factor(op, ranks));
  }
  return c;
}

std::optional<CollectiveOp> parse_op(std::string_view s) {
  if (s == "allreduce" || s == "all-reduce") return CollectiveOp::allreduce;
  if (s == "allgather" || s == "all-gather") return CollectiveOp::allgather;
  if (s == "reducescatter" || s == "reduce-scatter") return CollectiveOp::reducescatter;
  if (s == "alltoall" || s == "all-to-all") return CollectiveOp::alltoall;
  return std::nullopt;
}

std::optional<CollectiveAlgo> parse_algo(std::string_view s) {
  if (s == "ring") return CollectiveAlgo::ring;
  if (s == "tree") return CollectiveAlgo::tree;
  if (s == "in-network" || s == "sharp") return CollectiveAlgo::in_network;
  return std::nullopt;
}

const char* op_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::allreduce: return "all-reduce";
    case CollectiveOp::allgather: return "all-gather";
    case CollectiveOp::reducescatter: return "reduce-scatter";
    case CollectiveOp::alltoall: return "all-to-all";
  }
  return "?";
}

const char* algo_name(CollectiveAlgo a) {
  switch (a) {
    case CollectiveAlgo::ring: return "ring";
    case CollectiveAlgo::tree: return "tree";
    case CollectiveAlgo::in_network: return "in-network";
  }
  return "?";
}

Seconds default_step_latency(std::string_view type) {
  // NCCL src/graph/tuning.cc, hwLat[...][Ring][Simple], microseconds per step.
  if (type == "nvlink" || type == "c2c" || type == "ualink" || type == "infinity-fabric" || type == "ici" || type == "neuronlink")
    return from_base<Seconds>(3.4e-6);
  if (type == "pcie" || type == "cxl") return from_base<Seconds>(5.7e-6);
  return from_base<Seconds>(9.6e-6);
}

}  // namespace infracalc::cluster
