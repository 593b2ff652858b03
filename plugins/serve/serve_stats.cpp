#include "plugins/serve/serve_stats.hpp"

#include <algorithm>
#include <cmath>

namespace infracalc::serve {

double quantile(std::vector<double>& values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double h = (static_cast<double>(values.size()) - 1.0) * std::clamp(q, 0.0, 1.0);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const auto hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

Percentiles percentiles(std::vector<double> seconds) {
  Percentiles p;
  p.count = static_cast<std::int64_t>(seconds.size());
  if (seconds.empty()) return p;
  double sum = 0;
  for (double v : seconds) sum += v;
  p.mean = from_base<Seconds>(sum / static_cast<double>(seconds.size()));
  p.p50 = from_base<Seconds>(quantile(seconds, 0.50));
  p.p95 = from_base<Seconds>(quantile(seconds, 0.95));
  p.p99 = from_base<Seconds>(quantile(seconds, 0.99));
  p.max = from_base<Seconds>(seconds.back());
  return p;
}

Summary summarize(const SimResult& r, std::int64_t kv_blocks) {
  Summary s;
  s.requests = static_cast<std::int64_t>(r.requests.size());
  s.makespan = r.makespan;
  const double span = r.makespan.value();
  std::vector<double> ttft, tpot, lat, queue;
  double prompt = 0, residence = 0;
  // Arrival (+1) and answer (−1) events: ∫N(t)dt by sweeping them in time order.
  std::vector<std::pair<double, int>> events;
  events.reserve(2 * r.requests.size());
  for (const auto& q : r.requests) {
    ttft.push_back(q.ttft().value());
    if (q.output > 1) tpot.push_back(q.tpot().value());
    lat.push_back(q.latency().value());
    queue.push_back((q.scheduled - q.arrival).value());
    prompt += static_cast<double>(q.prompt);
    residence += (q.done - q.scheduled).value();
    events.emplace_back(q.arrival.value(), +1);
    events.emplace_back(q.done.value(), -1);
  }
  std::sort(events.begin(), events.end());
  double area = 0, last = 0;
  int in_system = 0;
  for (const auto& [t, d] : events) {
    area += in_system * (t - last);
    last = t;
    in_system += d;
  }
  s.ttft = percentiles(std::move(ttft));
  s.tpot = percentiles(std::move(tpot));
  s.latency = percentiles(std::move(lat));
  s.queue = percentiles(std::move(queue));
  if (span > 0) {
    s.output_rate = from_base<TokensPerSecond>(static_cast<double>(r.output_tokens) / span);
    s.total_rate = from_base<TokensPerSecond>((static_cast<double>(r.output_tokens) + prompt) / span);
    s.request_rate = from_base<PerSecond>(static_cast<double>(s.requests) / span);
    s.mean_in_system = area / span;
    s.busy_fraction = r.busy.value() / span;
  }
  s.mean_residence = from_base<Seconds>(s.requests > 0 ? residence / static_cast<double>(s.requests) : 0.0);
  double running_area = 0, kv_area = 0, peak_blocks = 0, decode_time = 0, prefill_time = 0;
  std::int64_t decode_steps = 0, prefill_steps = 0;
  for (const auto& st : r.steps) {
    running_area += st.running * st.duration;
    kv_area += static_cast<double>(st.blocks_used) * st.duration;
    peak_blocks = std::max(peak_blocks, static_cast<double>(st.blocks_used));
    if (st.prefilling > 0) {
      prefill_time += st.duration;
      ++prefill_steps;
    } else if (st.decoding > 0 || st.carried > 0) {
      decode_time += st.duration;
      ++decode_steps;
    }
  }
  if (span > 0) s.mean_running = running_area / span;
  if (r.busy.value() > 0) s.mean_running_busy = running_area / r.busy.value();
  if (kv_blocks > 0 && r.busy.value() > 0) {
    s.mean_kv_use = kv_area / r.busy.value() / static_cast<double>(kv_blocks);
    s.peak_kv_use = peak_blocks / static_cast<double>(kv_blocks);
  }
  if (decode_steps > 0) s.mean_decode_step = from_base<Seconds>(decode_time / static_cast<double>(decode_steps));
  if (prefill_steps > 0) s.mean_prefill_step = from_base<Seconds>(prefill_time / static_cast<double>(prefill_steps));
  return s;
}

TargetLatencies target_latencies(const SimResult& r) {
  std::vector<double> ttft, tpot;
  ttft.reserve(r.requests.size());
  tpot.reserve(r.requests.size());
  for (const auto& q : r.requests) {
    ttft.push_back(q.ttft().value());
    if (q.output > 1) tpot.push_back(q.tpot().value());
  }
  TargetLatencies t;
  t.ttft_p95 = from_base<Seconds>(quantile(ttft, 0.95));
  t.tpot_p95 = from_base<Seconds>(quantile(tpot, 0.95));
  t.tpot_count = static_cast<std::int64_t>(tpot.size());
  return t;
}

std::int64_t within_targets(const SimResult& r, Seconds ttft_target, Seconds tpot_target) {
  std::int64_t n = 0;
  for (const auto& q : r.requests) {
    const bool ttft_ok = ttft_target.value() <= 0 || q.ttft() <= ttft_target;
    const bool tpot_ok = tpot_target.value() <= 0 || q.output <= 1 || q.tpot() <= tpot_target;
    n += (ttft_ok && tpot_ok) ? 1 : 0;
  }
  return n;
}

std::vector<OccupancyBin> occupancy(const SimResult& r, int bins, std::int64_t kv_blocks) {
  const int n = std::max(1, bins);
  const double span = r.makespan.value();
  std::vector<OccupancyBin> out(static_cast<std::size_t>(n));
  const double width = span > 0 ? span / n : 0.0;
  for (int i = 0; i < n; ++i) {
    out[static_cast<std::size_t>(i)].start = width * i;
    out[static_cast<std::size_t>(i)].end = i + 1 == n ? span : width * (i + 1);
  }
  if (width <= 0) return out;
  for (const auto& st : r.steps) {
    const double a = st.start, b = st.start + st.duration;
    const auto first = static_cast<std::size_t>(std::clamp(static_cast<int>(a / width), 0, n - 1));
    out[first].steps += 1;
    if (st.duration <= 0) {
      out[first].output_rate += st.output_tokens;
      continue;
    }
    for (auto i = first; i < out.size() && out[i].start < b; ++i) {
      const double overlap = std::min(b, out[i].end) - std::max(a, out[i].start);
      if (overlap <= 0) continue;
      out[i].running += st.running * overlap;
      out[i].waiting += st.waiting * overlap;
      if (kv_blocks > 0) out[i].kv_use += static_cast<double>(st.blocks_used) / static_cast<double>(kv_blocks) * overlap;
      out[i].output_rate += st.output_tokens * overlap / st.duration;  // spread over the step
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double len = out[i].end - out[i].start;
    if (len <= 0) continue;
    out[i].running /= len;
    out[i].kv_use /= len;
    out[i].output_rate /= len;
    out[i].waiting /= len;
  }
  return out;
}

}  // namespace infracalc::serve
