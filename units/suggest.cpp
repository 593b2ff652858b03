#include "units/suggest.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace infracalc {

namespace {
std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// The distance with its three rows of |b| + 1 cells in `rows`.
std::size_t osa_distance(std::string_view a, std::string_view b, std::size_t* rows) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  std::size_t* prev2 = rows;
  std::size_t* prev = rows + (m + 1);
  std::size_t* cur = rows + 2 * (m + 1);
  for (std::size_t j = 0; j <= m; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}
}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance (Levenshtein plus adjacent transpositions), three rolling rows. Rows
  // live on the stack for names up to 64 characters (every id and flag): this runs once per candidate for
  // every unknown word, so it must not allocate.
  if (b.size() > 64) std::swap(a, b);
  if (b.size() > 64) {
    std::vector<std::size_t> rows(3 * (b.size() + 1));
    return osa_distance(a, b, rows.data());
  }
  std::array<std::size_t, 3 * 65> rows;
  return osa_distance(a, b, rows.data());
}

namespace {
struct Match {
  std::size_t score;     // the edit distance, or 1 for a fragment of a long name ("h100" in "h100-sxm")
  std::size_t distance;  // the edit distance itself (or the length gap, its lower bound, when that alone is far)
  bool prefix;           // the name starts with what was typed ("h100" → "h100-sxm" before "dgx-h100")
  std::string name;
};

// Candidates within typo distance of `typed`, closest first: by score, then names that start with what was
// typed, then by the edit distance itself, so that "token" ranks "tokens" (one insertion) before
// "experts_per_token" (a fragment) and "h100" ranks "h100-pcie" before "dgx-h100"; remaining ties keep the
// candidates' order.
std::vector<Match> near_matches(std::string_view typed, const std::vector<std::string_view>& candidates) {
  const std::string t = lower(typed);
  std::vector<Match> out;
  if (t.size() > 64) return out;  // nobody mistypes 64 characters; and edit distance is quadratic
  // Allow about one edit per three characters, at least one.
  const std::size_t limit = std::max<std::size_t>(1, t.size() / 3);
  for (auto c : candidates) {
    const std::string lc = lower(c);
    if (lc == t) return {{0, 0, true, std::string(c)}};
    // The edit distance is at least the difference in length: skip the quadratic count when that alone
    // is over the limit (a long list of candidates is scanned for every unknown word).
    const std::size_t gap = t.size() > lc.size() ? t.size() - lc.size() : lc.size() - t.size();
    const std::size_t d = gap > limit ? gap : edit_distance(t, lc);
    std::size_t score = d;
    // A typed prefix or fragment of a long id ("h100" for "h100-sxm") is a strong signal.
    // Both sides need a few characters: "k" inside "kww" says nothing.
    if ((t.size() >= 3 && lc.find(t) != std::string::npos) || (lc.size() >= 3 && t.find(lc) != std::string::npos))
      score = std::min<std::size_t>(d, 1);
    if (score <= limit) out.push_back({score, d, lc.starts_with(t), std::string(c)});
  }
  std::stable_sort(out.begin(), out.end(), [](const Match& a, const Match& b) {
    if (a.score != b.score) return a.score < b.score;
    if (a.prefix != b.prefix) return a.prefix;
    return a.distance < b.distance;
  });
  return out;
}

// Every equally close candidate (up to three), so that "h100" lists each H100 variant: names that start with
// what was typed first, then the nearest edit, then by name.
std::vector<std::string> best_matches(std::string_view typed, const std::vector<std::string_view>& candidates) {
  const auto m = near_matches(typed, candidates);
  std::vector<const Match*> best;
  for (const auto& x : m)
    if (x.score == m.front().score && best.size() < 3 &&
        std::none_of(best.begin(), best.end(), [&](const Match* b) { return b->name == x.name; }))
      best.push_back(&x);
  std::sort(best.begin(), best.end(), [](const Match* a, const Match* b) {
    if (a->prefix != b->prefix) return a->prefix;
    return a->distance != b->distance ? a->distance < b->distance : a->name < b->name;
  });
  std::vector<std::string> out;
  for (const Match* b : best) out.push_back(b->name);
  return out;
}
}  // namespace

std::string closest_match(std::string_view typed, const std::vector<std::string_view>& candidates) {
  const auto m = near_matches(typed, candidates);
  return m.empty() ? std::string() : m.front().name;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string_view>& candidates, std::string_view prefix) {
  const auto best = best_matches(typed, candidates);
  if (best.empty()) return {};
  std::string out = "did you mean '" + std::string(prefix) + best[0] + "'";
  for (std::size_t i = 1; i < best.size(); ++i)
    out += (i + 1 == best.size() ? " or '" : ", '") + std::string(prefix) + best[i] + "'";
  return out + "?";
}

}  // namespace infracalc
