#include "plugins/decode/decode_timeline.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>

namespace infracalc::decode {

Expected<Layout> parse_layout(std::string_view text) {
  Layout l;
  std::string s;
  for (char c : text) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  bool seen[3] = {false, false, false};
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] == 'x' || s[i] == '*' || s[i] == ' ') {
      ++i;
      continue;
    }
    const std::string key = s.substr(i, 2);
    const int which = key == "tp" ? 0 : key == "pp" ? 1 : key == "dp" ? 2 : -1;
    if (which < 0 || seen[which])
      return Error{fmt::format("layout '{}': expected factors TP<n>, PP<n>, DP<n> once each", text), "e.g. TP8, TP4xPP2, DP8, TP2xPP2xDP2"};
    seen[which] = true;
    i += 2;
    std::size_t j = i;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])) != 0) ++j;
    if (j == i || j - i > 5) return Error{fmt::format("layout '{}': {} needs a count from 1 to 32768", text, key), "e.g. TP4xPP2"};
    const int n = std::stoi(s.substr(i, j - i));
    if (n < 1 || n > 32768) return Error{fmt::format("layout '{}': {} needs a count from 1 to 32768", text, key), "e.g. TP4xPP2"};
    (which == 0 ? l.tp : which == 1 ? l.pp : l.dp) = n;
    i = j;
  }
  if (!seen[0] && !seen[1] && !seen[2]) return Error{fmt::format("layout '{}' names no factor", text), "e.g. TP8, TP4xPP2, DP8"};
  return l;
}

std::string layout_name(const Layout& l) {
  std::string s;
  const auto add = [&](const char* k, int n) {
    if (n > 1) s += (s.empty() ? "" : "x") + std::string(k) + std::to_string(n);
  };
  add("TP", l.tp);
  add("PP", l.pp);
  add("DP", l.dp);
  return s.empty() ? "TP1" : s;
}

LayoutRound simulate_layout(const Workload& w, const Roof& roof, const std::optional<Link>& link, const Layout& layout, double batch,
                            Tokens context, bool prefill, int micro_batches) {
  LayoutRound r;
  r.layout = layout;
  const int tp = layout.tp, pp = layout.pp;
  r.micro_batches = micro_batches > 0 ? micro_batches : pp;
  r.replica_batch = batch / layout.dp;
  r.micro_batch = r.replica_batch / r.micro_batches;
  const double layers = w.arch ? w.arch->layers : 1;
  const double hidden = w.arch ? w.arch->hidden_size : 0;
  const double tokens = prefill ? r.micro_batch * context.value() : r.micro_batch;
  const StepDetail whole = prefill ? prefill_step(w, r.micro_batch, context, true, tp) : decode_step(w, r.micro_batch, context, tp);
  // A stage holds 1/pp of the layers: its share of the bytes and operations.
  const StepCost stage{whole.cost().flops / static_cast<double>(pp), whole.cost().bytes / static_cast<double>(pp)};
  r.stage_compute = step_time(stage, roof, Seconds{}, Seconds{}).total;
  const Bytes activation = from_base<Bytes>(2.0);
  if (link) {
    const int stage_layers = static_cast<int>(std::ceil(layers / pp));
    r.stage_communicate = tp_communication(stage_layers, static_cast<int>(hidden), tokens, activation, tp, *link).total;
    if (pp > 1) r.hand_over = link->latency + tokens * hidden * activation / link->bandwidth;
  }
  const Seconds work = r.stage_compute + r.stage_communicate;

  // Event simulation of one replica: micro-batch j of round k runs on stage s after it left stage s − 1 (plus
  // the hand-over) and after stage s finished its previous item; in decode the next round of micro-batch j
  // starts at stage 0 once its token came out of the last stage. Stages run their items in arrival order.
  const int rounds = prefill ? 1 : 3;
  const int m = r.micro_batches;
  std::vector<std::vector<Seconds>> done(static_cast<std::size_t>(pp), std::vector<Seconds>(static_cast<std::size_t>(m * rounds)));
  std::vector<std::vector<Seconds>> begin = done;
  std::vector<Seconds> free_at(static_cast<std::size_t>(pp), Seconds{});
  for (int k = 0; k < rounds; ++k) {
    for (int j = 0; j < m; ++j) {
      const auto item = static_cast<std::size_t>(k * m + j);
      for (int s = 0; s < pp; ++s) {
        const auto st = static_cast<std::size_t>(s);
        Seconds ready{};
        if (s > 0) ready = done[st - 1][item] + r.hand_over;
        else if (k > 0) ready = done[static_cast<std::size_t>(pp - 1)][item - static_cast<std::size_t>(m)] + (pp > 1 ? r.hand_over : Seconds{});
        begin[st][item] = std::max(ready, free_at[st]);
        done[st][item] = begin[st][item] + work;
        free_at[st] = done[st][item];
      }
    }
  }
  // The window: the last round, from its first item entering stage 0 to that micro-batch entering it again
  // (decode's steady state), or the whole prefill.
  const auto first = static_cast<std::size_t>((rounds - 1) * m);
  const Seconds t0 = begin[0][first];
  if (prefill) {
    r.round = done[static_cast<std::size_t>(pp - 1)][static_cast<std::size_t>(m - 1)];
  } else {
    r.round = begin[0][first] - begin[0][first - static_cast<std::size_t>(m)];
  }
  const Seconds t1 = t0 + r.round;
  Seconds compute{}, communicate{};
  for (int s = 0; s < pp; ++s) {
    const auto st = static_cast<std::size_t>(s);
    std::vector<Segment> stage_segments;
    for (std::size_t item = 0; item < done[st].size(); ++item) {
      // An item of the previous round still running on this stage when the window opens counts too.
      const Seconds a = std::max(begin[st][item], t0), mid = std::max(begin[st][item] + r.stage_compute, t0),
                    b = std::min(done[st][item], t1);
      if (b <= t0 || begin[st][item] >= t1) continue;
      const int mb = static_cast<int>(item % static_cast<std::size_t>(m));
      if (std::min(mid, b) > a) stage_segments.push_back({0, a - t0, std::min(mid, b) - t0, GpuState::compute, mb});
      if (b > mid) stage_segments.push_back({0, mid - t0, b - t0, GpuState::communicate, mb});
    }
    std::sort(stage_segments.begin(), stage_segments.end(), [](const Segment& x, const Segment& y) { return x.start < y.start; });
    std::vector<Segment> filled;
    Seconds at{};
    for (const auto& seg : stage_segments) {
      if (seg.end - seg.start <= Seconds{}) continue;
      if (seg.start > at) filled.push_back({0, at, seg.start, GpuState::wait, -1});
      filled.push_back(seg);
      at = seg.end;
      (seg.state == GpuState::compute ? compute : communicate) += seg.end - seg.start;
    }
    if (r.round > at) filled.push_back({0, at, r.round, GpuState::wait, -1});
    for (int d = 0; d < layout.dp; ++d)
      for (int rank = 0; rank < tp; ++rank)
        for (Segment seg : filled) {
          seg.gpu = d * tp * pp + s * tp + rank;
          r.segments.push_back(seg);
        }
  }
  const double per_gpu = pp * r.round.value();
  r.compute_share = compute.value() / per_gpu;
  r.communicate_share = communicate.value() / per_gpu;
  r.wait_share = std::max(0.0, 1.0 - r.compute_share - r.communicate_share);
  r.per_sequence = from_base<PerSecond>(1.0 / r.round.value());
  const double produced = prefill ? batch * context.value() : batch;
  r.total = from_base<TokensPerSecond>(produced / r.round.value());
  return r;
}

}  // namespace infracalc::decode
