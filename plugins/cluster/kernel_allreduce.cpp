// Reference kernel cluster-allreduce: P threads, each with a real buffer, run ring, binomial-tree and
// in-network (switch) all-reduce through mailboxes, counting the bytes each rank sends and the steps, and
// check every rank ends with the exact elementwise sum.
#include <algorithm>
#include <barrier>
#include <cstdio>
#include <fmt/format.h>
#include <thread>

#include "plugins/cluster/cluster_kernels.hpp"
#include "plugins/cluster/collectives.hpp"

namespace infracalc::cluster {

namespace {

Quantity n(double v) { return Quantity::number(v); }
Quantity bytes(double v) { return Quantity{v, dims::information}; }

struct Send {
  int step, from, to;
  std::size_t first, count;
};

struct World {
  int ranks;
  std::size_t elems;
  std::vector<std::vector<float>> data, inbox;
  std::vector<double> sent;
  std::vector<std::vector<Send>> log;  // per rank
  std::barrier<> sync;
  int steps = 0;  // counted by rank 0
  World(int p, std::size_t e) : ranks(p), elems(e), data(static_cast<std::size_t>(p)), inbox(static_cast<std::size_t>(p)),
                                sent(static_cast<std::size_t>(p), 0.0), log(static_cast<std::size_t>(p)), sync(p) {
    for (int r = 0; r < p; ++r) {
      auto& d = data[static_cast<std::size_t>(r)];
      d.resize(e);
      // Small integers: float sums stay exact, so the check can demand equality.
      for (std::size_t i = 0; i < e; ++i) d[i] = static_cast<float>((r + 1) * static_cast<int>(i % 7 + 1));
      inbox[static_cast<std::size_t>(r)].resize(e);
    }
  }
  std::size_t begin(int chunk) const { return static_cast<std::size_t>(chunk) * elems / static_cast<std::size_t>(ranks); }
  // Copies data[from][first, first + count) into to's mailbox.
  void send(int step, int from, int to, std::size_t first, std::size_t count, const float* src) {
    std::copy(src, src + count, inbox[static_cast<std::size_t>(to)].begin() + static_cast<std::ptrdiff_t>(first));
    sent[static_cast<std::size_t>(from)] += static_cast<double>(count * sizeof(float));
    log[static_cast<std::size_t>(from)].push_back({step, from, to, first, count});
  }
};

void ring_rank(World& w, int r) {
  const int p = w.ranks, next = (r + 1) % p;
  auto& d = w.data[static_cast<std::size_t>(r)];
  auto& in = w.inbox[static_cast<std::size_t>(r)];
  int step = 0;
  // Reduce-scatter: send chunk r - k, add the received chunk r - k - 1.
  for (int k = 0; k < p - 1; ++k, ++step) {
    const int c = ((r - k) % p + p) % p;
    w.send(step, r, next, w.begin(c), w.begin(c + 1) - w.begin(c), d.data() + w.begin(c));
    w.sync.arrive_and_wait();
    const int rc = ((r - k - 1) % p + p) % p;
    for (std::size_t i = w.begin(rc); i < w.begin(rc + 1); ++i) d[i] += in[i];
    if (r == 0) ++w.steps;
    w.sync.arrive_and_wait();
  }
  // All-gather: pass the reduced chunks on.
  for (int k = 0; k < p - 1; ++k, ++step) {
    const int c = ((r + 1 - k) % p + p) % p;
    w.send(step, r, next, w.begin(c), w.begin(c + 1) - w.begin(c), d.data() + w.begin(c));
    w.sync.arrive_and_wait();
    const int rc = ((r - k) % p + p) % p;
    std::copy(in.begin() + static_cast<std::ptrdiff_t>(w.begin(rc)), in.begin() + static_cast<std::ptrdiff_t>(w.begin(rc + 1)),
              d.begin() + static_cast<std::ptrdiff_t>(w.begin(rc)));
    if (r == 0) ++w.steps;
    w.sync.arrive_and_wait();
  }
}

void tree_rank(World& w, int r) {
  const int p = w.ranks, rounds = ceil_log2(p);
  auto& d = w.data[static_cast<std::size_t>(r)];
  auto& in = w.inbox[static_cast<std::size_t>(r)];
  int step = 0;
  // Binomial reduce to rank 0: in round k, ranks with lowest set bit k send to r - 2^k.
  for (int k = 0; k < rounds; ++k, ++step) {
    const int bit = 1 << k;
    if (r % (2 * bit) == bit) w.send(step, r, r - bit, 0, w.elems, d.data());
    w.sync.arrive_and_wait();
    if (r % (2 * bit) == 0 && r + bit < p)
      for (std::size_t i = 0; i < w.elems; ++i) d[i] += in[i];
    if (r == 0) ++w.steps;
    w.sync.arrive_and_wait();
  }
  // Binomial broadcast from rank 0, rounds in reverse.
  for (int k = rounds - 1; k >= 0; --k, ++step) {
    const int bit = 1 << k;
    if (r % (2 * bit) == 0 && r + bit < p) w.send(step, r, r + bit, 0, w.elems, d.data());
    w.sync.arrive_and_wait();
    if (r % (2 * bit) == bit) std::copy(in.begin(), in.end(), d.begin());
    if (r == 0) ++w.steps;
    w.sync.arrive_and_wait();
  }
}

// The switch: every rank deposits its buffer (one send up), the switch sums the deposits, every rank
// takes the sum (one receive down). The summing work is split over the rank threads, as a switch's
// aggregation units work in parallel.
void switch_rank(World& w, int r, std::vector<std::vector<float>>& deposit, std::vector<float>& sum) {
  const int p = w.ranks;
  auto& d = w.data[static_cast<std::size_t>(r)];
  std::copy(d.begin(), d.end(), deposit[static_cast<std::size_t>(r)].begin());
  w.sent[static_cast<std::size_t>(r)] += static_cast<double>(w.elems * sizeof(float));
  w.log[static_cast<std::size_t>(r)].push_back({0, r, -1, 0, w.elems});
  w.sync.arrive_and_wait();
  for (std::size_t i = w.begin(r); i < w.begin(r + 1); ++i) {
    float s = 0;
    for (int q = 0; q < p; ++q) s += deposit[static_cast<std::size_t>(q)][i];
    sum[i] = s;
  }
  if (r == 0) ++w.steps;
  w.sync.arrive_and_wait();
  std::copy(sum.begin(), sum.end(), d.begin());
  if (r == 0) ++w.steps;
  w.sync.arrive_and_wait();
}

// Which half of the algorithm a step belongs to.
const char* phase(CollectiveAlgo algo, int step, int ranks) {
  switch (algo) {
    case CollectiveAlgo::ring: return step < ranks - 1 ? "reduce-scatter" : "all-gather";
    case CollectiveAlgo::tree: return step < ceil_log2(ranks) ? "reduce" : "broadcast";
    case CollectiveAlgo::in_network: return "up";
  }
  return "";
}

void trace_sends(const World& w, CollectiveAlgo algo) {
  const char* name = algo_name(algo);
  std::vector<Send> all;
  for (const auto& l : w.log) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end(), [](const Send& a, const Send& b) { return a.step != b.step ? a.step < b.step : a.from < b.from; });
  for (const auto& s : all)
    std::fprintf(stderr, "  %s P=%d step %d (%s): rank %d -> %s: elements [%zu, %zu) = %zu B\n", name, w.ranks, s.step,
                 phase(algo, s.step, w.ranks), s.from, s.to < 0 ? "switch" : fmt::format("rank {}", s.to).c_str(), s.first,
                 s.first + s.count, s.count * sizeof(float));
  if (algo == CollectiveAlgo::in_network)
    std::fprintf(stderr, "  %s P=%d step 1 (down): switch -> every rank: the sum, %zu B each\n", name, w.ranks, w.elems * sizeof(float));
}

void check(World& w, CollectiveAlgo algo, const std::string& label, bool trace, std::vector<KernelCheck>& out) {
  const double s = static_cast<double>(w.elems * sizeof(float));
  const CollectiveCost f = collective_cost(CollectiveOp::allreduce, algo, from_base<Bytes>(s), w.ranks,
                                           LinkModel{from_base<Seconds>(1e-6), from_base<BytesPerSecond>(1e9)});
  std::size_t wrong = 0;
  const double total = w.ranks * (w.ranks + 1) / 2.0;
  for (const auto& d : w.data)
    for (std::size_t i = 0; i < w.elems; ++i)
      if (d[i] != static_cast<float>(total * static_cast<double>(i % 7 + 1))) ++wrong;
  double busiest = 0, all = 0;
  for (double x : w.sent) {
    busiest = std::max(busiest, x);
    all += x;
  }
  out.push_back({label + ": steps", n(static_cast<double>(f.steps)), n(w.steps), 0.0});
  out.push_back({label + ": bytes the busiest rank sends", bytes(f.sent_per_rank.value()), bytes(busiest), 0.0});
  out.push_back({label + ": bytes all ranks send", bytes(f.wire_total.value()), bytes(all), 0.0});
  out.push_back({label + ": elements that differ from the exact sum", n(0), n(static_cast<double>(wrong)), 0.0, 0.0});
  if (trace) trace_sends(w, algo);
}

}  // namespace

std::vector<KernelCheck> run_allreduce_kernel(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const std::vector<int> sizes = opt.quick ? std::vector<int>{2, 5, 8} : std::vector<int>{2, 3, 5, 8, 16, 24};
  const std::size_t per_rank = opt.quick ? 1024 : 8192;
  for (int p : sizes) {
    const std::size_t elems = per_rank * static_cast<std::size_t>(p);  // a multiple of P: equal ring chunks
    const bool trace = opt.trace && p <= 5;
    {
      World w(p, elems);
      std::vector<std::thread> t;
      for (int r = 0; r < p; ++r) t.emplace_back(ring_rank, std::ref(w), r);
      for (auto& x : t) x.join();
      check(w, CollectiveAlgo::ring, fmt::format("ring all-reduce, {} ranks, {} B", p, elems * sizeof(float)), trace, out);
    }
    {
      World w(p, elems);
      std::vector<std::thread> t;
      for (int r = 0; r < p; ++r) t.emplace_back(tree_rank, std::ref(w), r);
      for (auto& x : t) x.join();
      check(w, CollectiveAlgo::tree, fmt::format("tree all-reduce, {} ranks, {} B", p, elems * sizeof(float)), trace, out);
    }
    {
      World w(p, elems);
      std::vector<std::vector<float>> deposit(static_cast<std::size_t>(p), std::vector<float>(elems));
      std::vector<float> sum(elems);
      std::vector<std::thread> t;
      for (int r = 0; r < p; ++r) t.emplace_back(switch_rank, std::ref(w), r, std::ref(deposit), std::ref(sum));
      for (auto& x : t) x.join();
      check(w, CollectiveAlgo::in_network, fmt::format("in-network all-reduce, {} ranks, {} B", p, elems * sizeof(float)), trace, out);
    }
  }
  return out;
}

}  // namespace infracalc::cluster
