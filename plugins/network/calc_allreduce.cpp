// `network allreduce`: runs a real ring all-reduce over the values given (one per worker) and sizes the bytes each
// worker puts on the wire for ring and in-network (SHARP-style) reduction.
#include <cmath>
#include <fmt/format.h>

#include "host/words.hpp"
#include "plugins/network/allreduce.hpp"
#include "plugins/network/network_calculators.hpp"
#include "plugins/network/network_common.hpp"
#include "units/format.hpp"

namespace infracalc::net {

namespace {

constexpr std::int64_t kMaxThreads = 256;

void run_allreduce(Context& ctx) {
  std::vector<std::string> notes;
  std::vector<double> values;
  if (ctx.has("values")) {
    for (const auto& w : split_list(ctx.text("values"), ",\n")) {
      auto q = parse_input(w, Expectation{dims::none, false}, "--values");
      if (!q) throw UserError{q.error()};
      values.push_back(q->value);
    }
  }
  std::int64_t n = 0;
  if (ctx.has("workers")) n = ctx.integer("workers");
  if (!values.empty()) {
    if (n != 0 && n != static_cast<std::int64_t>(values.size()))
      throw UserError{{fmt::format("--workers {} but {} values given", n, values.size()), "give one value per worker"}};
    n = static_cast<std::int64_t>(values.size());
  }
  if (n < 1) throw UserError{{"network allreduce: no workers", "give --values 2,4,6,8 or --workers N"}};
  ctx.set_number("workers", static_cast<double>(n));
  ctx.set_number("steps", n > 1 ? 2.0 * static_cast<double>(n - 1) : 0.0);

  Bytes size = from_base<Bytes>(8.0 * static_cast<double>(n));
  if (ctx.has("size")) size = ctx.get<Bytes>("size");
  if (!values.empty()) {
    if (n > kMaxThreads)
      throw UserError{{fmt::format("{} values: the ring runs one thread per worker, at most {}", n, kMaxThreads), "give fewer values"}};
    // Each worker holds its value in every one of n elements, so each ring chunk is one element.
    std::vector<std::vector<double>> buffers;
    for (double v : values) buffers.emplace_back(static_cast<std::size_t>(n), v);
    const RingRun run = ring_allreduce(std::move(buffers));
    const double result = run.buffers[0][0];
    bool same = true;
    for (const auto& b : run.buffers)
      for (double x : b) same = same && x == result;
    ctx.set_number("result", result);
    ctx.set_number("average", result / static_cast<double>(n));
    ctx.set("measured_bytes_per_worker", from_base<Bytes>(static_cast<double>(run.bytes_sent[0])));
    ctx.verdict("every_worker_has_the_sum", same, same ? "all workers hold the same reduced values" : "workers disagree (please report)");
    notes.push_back(fmt::format("ran a ring all-reduce on {} threads: {} steps (reduce-scatter then all-gather), {} B sent per worker "
                                "for {} {}-element buffer of doubles",
                                n, run.steps, run.bytes_sent[0], article(std::to_string(n)), n));
  }
  ctx.set("ring_bytes_per_worker", from_base<Bytes>(ring_bytes_per_worker(size.value(), n)));
  ctx.set("in_network_bytes_per_worker", size);
  ctx.set_number("ring_to_in_network", n > 1 ? ring_bytes_per_worker(size.value(), n) / size.value() : 0.0);
  if (ctx.has("link_bandwidth")) {
    const BytesPerSecond bw = ctx.get<BytesPerSecond>("link_bandwidth");
    ctx.set("ring_time", from_base<Bytes>(ring_bytes_per_worker(size.value(), n)) / bw);
    ctx.set("in_network_time", size / bw);
    notes.push_back("times are bandwidth terms only: per-step latency (2(N-1) steps for the ring) and reduction compute are extra");
  }
  notes.push_back("ring: each worker sends 2(N-1)/N of its buffer (reduce-scatter + all-gather); in-network reduction (SHARP): "
                  "each sends its buffer once and receives the result once, about half the ring's traffic for large N");
  for (auto& nt : notes) ctx.note(std::move(nt));
}

}  // namespace

Calculator make_allreduce_calculator() {
  Calculator c;
  c.name = "allreduce";
  c.summary = "ring all-reduce run on real threads over given values; bytes per worker for ring vs in-network reduction";
  c.description =
      "With --values, one thread per worker runs a ring all-reduce (sum) and every worker ends with the total (2, 4, 6, 8 -> 20; "
      "average 5). Ring bytes sent per worker = 2 (N-1)/N x S; in-network (switch) reduction sends S once, so the ring moves "
      "2 (N-1)/N times as much. Time = bytes / link bandwidth (one direction).";
  c.inputs = {
      {.name = "values", .kind = InputKind::text, .help = "one number per worker, e.g. 2,4,6,8", .example = "2,4,6,8", .optional = true},
      {.name = "workers", .kind = InputKind::integer, .help = "workers (default: the number of values)", .example = "8", .optional = true},
      {.name = "size", .kind = InputKind::quantity, .dim = dims::information, .help = "buffer each worker reduces (default: 8 B per worker)",
       .example = "1GB", .optional = true},
      {.name = "link_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate, .help = "per-worker link bandwidth, one direction",
       .example = "50GB/s", .optional = true},
  };
  c.outputs = {
      {"workers", dims::none, "workers in the ring"},
      {"steps", dims::none, "ring steps, 2 (N - 1)"},
      {"result", dims::none, "the reduced sum every worker holds"},
      {"average", dims::none, "sum / workers"},
      {"measured_bytes_per_worker", dims::information, "bytes each worker sent in the run"},
      {"ring_bytes_per_worker", dims::information, "2 (N - 1) / N x buffer"},
      {"in_network_bytes_per_worker", dims::information, "buffer (sent once to the switch)"},
      {"ring_to_in_network", dims::none, "ring bytes / in-network bytes"},
      {"ring_time", dims::time, "ring bytes / link bandwidth"},
      {"in_network_time", dims::time, "in-network bytes / link bandwidth"},
  };
  c.run = run_allreduce;
  c.source = __FILE__;
  c.verdicts = {
      {"every_worker_has_the_sum", "every worker holds the same reduced values"},
  };
  return c;
}

}  // namespace infracalc::net
