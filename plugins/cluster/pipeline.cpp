#include "plugins/cluster/pipeline.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

#include "units/expected.hpp"

namespace infracalc::cluster {

double bubble_fraction(std::int64_t stages, std::int64_t microbatches, std::int64_t chunks) {
  const double p = static_cast<double>(stages), m = static_cast<double>(microbatches), v = static_cast<double>(std::max<std::int64_t>(1, chunks));
  return (p - 1.0) / (v * m + p - 1.0);
}

double stage_activations_in_flight(Schedule s, std::int64_t stages, std::int64_t microbatches, std::int64_t chunks) {
  const double p = static_cast<double>(stages), m = static_cast<double>(microbatches), v = static_cast<double>(std::max<std::int64_t>(1, chunks));
  if (s == Schedule::interleaved && chunks <= 1) s = Schedule::one_f_one_b;  // one chunk per device is plain 1F1B
  switch (s) {
    case Schedule::gpipe: return m;
    case Schedule::one_f_one_b: return std::min(p, m);
    case Schedule::interleaved:
      // Megatron's warm-up on the first device: 2(P-1) + (v-1)P chunk forwards, plus the first steady-state one.
      return std::min(v * m, 2.0 * (p - 1.0) + (v - 1.0) * p + 1.0) / v;
  }
  return m;
}

std::pair<int, int> stage_layers(int layers, int stages, int s) {
  const int base = layers / stages, rem = layers % stages;
  const int first = s * base + std::min(s, rem) + 1;
  const int count = base + (s < rem ? 1 : 0);
  return {first, first + count - 1};
}

const char* schedule_name(Schedule s) {
  switch (s) {
    case Schedule::gpipe: return "gpipe";
    case Schedule::one_f_one_b: return "1f1b";
    case Schedule::interleaved: return "interleaved";
  }
  return "?";
}

namespace {

struct Slot {
  int chunk = 0, mb = 0;
  bool backward = false;
};

// The order in which one device runs its operations.
std::vector<Slot> device_order(Schedule s, int stages, int m, int v, int d) {
  std::vector<Slot> order;
  if (s == Schedule::gpipe) {
    for (int i = 0; i < m; ++i) order.push_back({0, i, false});
    for (int i = 0; i < m; ++i) order.push_back({0, i, true});
    return order;
  }
  if (s == Schedule::one_f_one_b) {
    const int warm = std::min(stages - d - 1, m);
    for (int i = 0; i < warm; ++i) order.push_back({0, i, false});
    for (int i = 0; i < m - warm; ++i) {
      order.push_back({0, warm + i, false});
      order.push_back({0, i, true});
    }
    for (int i = m - warm; i < m; ++i) order.push_back({0, i, true});
    return order;
  }
  // Interleaved 1F1B as Megatron-LM schedules it (megatron/core/pipeline_parallel/schedules.py): micro-batches
  // in groups of P run through chunk 0, then chunk 1, ...; backwards visit the chunks in reverse.
  const int total = m * v;
  auto fwd = [&](int k) { return Slot{(k % (stages * v)) / stages, (k / (stages * v)) * stages + k % stages, false}; };
  auto bwd = [&](int k) { return Slot{v - 1 - (k % (stages * v)) / stages, (k / (stages * v)) * stages + k % stages, true}; };
  const int warm = std::min((stages - d - 1) * 2 + (v - 1) * stages, total);
  for (int k = 0; k < warm; ++k) order.push_back(fwd(k));
  for (int k = 0; k < total - warm; ++k) {
    order.push_back(fwd(warm + k));
    order.push_back(bwd(k));
  }
  for (int k = total - warm; k < total; ++k) order.push_back(bwd(k));
  return order;
}

}  // namespace

PipeSimResult simulate_pipeline(Schedule s, int stages, int microbatches, int chunks, double forward, double backward) {
  if (stages < 1 || microbatches < 1) throw UserError{{"the pipeline needs at least one stage and one micro-batch", ""}};
  if (s == Schedule::interleaved && chunks <= 1) s = Schedule::one_f_one_b;  // one chunk per device is plain 1F1B
  const int v = s == Schedule::interleaved ? std::max(1, chunks) : 1;
  if (s == Schedule::interleaved && microbatches % stages != 0)
    throw UserError{{fmt::format("--schedule interleaved: {} micro-batches is not a multiple of {} stages", microbatches, stages),
                     "Megatron-LM's interleaved schedule runs micro-batches in groups of P; give a multiple of --stages"}};
  const int vstages = stages * v;
  const double tf = forward / v, tb = backward / v;
  // done[f/b][virtual stage][micro-batch] = end time, or -1 while pending.
  std::vector<double> fdone(static_cast<std::size_t>(vstages * microbatches), -1.0), bdone(fdone);
  auto at = [&](int vs, int mb) { return static_cast<std::size_t>(vs * microbatches + mb); };
  std::vector<std::vector<Slot>> orders;
  for (int d = 0; d < stages; ++d) orders.push_back(device_order(s, stages, microbatches, v, d));
  std::vector<std::size_t> next(static_cast<std::size_t>(stages), 0);
  std::vector<double> free_at(static_cast<std::size_t>(stages), 0.0);
  PipeSimResult r;
  std::size_t remaining = 0;
  for (const auto& o : orders) remaining += o.size();
  while (remaining > 0) {
    bool progressed = false;
    for (int d = 0; d < stages; ++d) {
      auto& i = next[static_cast<std::size_t>(d)];
      const auto& order = orders[static_cast<std::size_t>(d)];
      while (i < order.size()) {
        const Slot& op = order[i];
        const int vs = op.chunk * stages + d;
        double ready = free_at[static_cast<std::size_t>(d)];
        if (!op.backward) {
          if (vs > 0) {
            const double dep = fdone[at(vs - 1, op.mb)];
            if (dep < 0) break;
            ready = std::max(ready, dep);
          }
        } else {
          const double own = fdone[at(vs, op.mb)];
          if (own < 0) break;
          ready = std::max(ready, own);
          if (vs < vstages - 1) {
            const double dep = bdone[at(vs + 1, op.mb)];
            if (dep < 0) break;
            ready = std::max(ready, dep);
          }
        }
        const double end = ready + (op.backward ? tb : tf);
        (op.backward ? bdone : fdone)[at(vs, op.mb)] = end;
        free_at[static_cast<std::size_t>(d)] = end;
        r.ops.push_back({d, op.chunk, op.mb, op.backward, ready, end});
        ++i;
        --remaining;
        progressed = true;
      }
    }
    if (!progressed) throw std::logic_error("pipeline schedule deadlocked");
  }
  for (const auto& op : r.ops) r.makespan = std::max(r.makespan, op.end);
  r.busy_per_device = static_cast<double>(microbatches) * (forward + backward);
  r.bubble = r.makespan > 0 ? 1.0 - r.busy_per_device / r.makespan : 0.0;
  // Activations live from a chunk's forward start to its backward end; frees before allocations at equal times.
  r.peak_in_flight.assign(static_cast<std::size_t>(stages), 0);
  for (int d = 0; d < stages; ++d) {
    std::vector<std::pair<double, int>> events;
    for (const auto& op : r.ops)
      if (op.device == d) events.emplace_back(op.backward ? op.end : op.start, op.backward ? -1 : +1);
    std::sort(events.begin(), events.end());
    int live = 0, peak = 0;
    for (const auto& e : events) {
      live += e.second;
      peak = std::max(peak, live);
    }
    r.peak_in_flight[static_cast<std::size_t>(d)] = peak;
  }
  return r;
}

}  // namespace infracalc::cluster
