#include "units/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace infracalc {

namespace {
std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}
}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  std::vector<std::size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
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

namespace {
// Candidates within typo distance of `typed`, closest first (ties keep the candidates' order).
std::vector<std::pair<std::size_t, std::string>> near_matches(std::string_view typed, const std::vector<std::string_view>& candidates) {
  const std::string t = lower(typed);
  std::vector<std::pair<std::size_t, std::string>> out;
  if (t.size() > 64) return out;  // nobody mistypes 64 characters; and edit distance is quadratic
  // Allow about one edit per three characters, at least one.
  const std::size_t limit = std::max<std::size_t>(1, t.size() / 3);
  for (auto c : candidates) {
    const std::string lc = lower(c);
    if (lc == t) return {{0, std::string(c)}};
    // The edit distance is at least the difference in length: skip the quadratic count when that alone
    // is over the limit (a long list of candidates is scanned for every unknown word).
    const std::size_t gap = t.size() > lc.size() ? t.size() - lc.size() : lc.size() - t.size();
    std::size_t d = gap > limit ? gap : edit_distance(t, lc);
    // A typed prefix or fragment of a long id ("h100" for "h100-sxm") is a strong signal.
    if (t.size() >= 3 && (lc.find(t) != std::string::npos || t.find(lc) != std::string::npos)) d = std::min<std::size_t>(d, 1);
    if (d <= limit) out.emplace_back(d, std::string(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}
}  // namespace

std::string closest_match(std::string_view typed, const std::vector<std::string_view>& candidates) {
  const auto m = near_matches(typed, candidates);
  return m.empty() ? std::string() : m.front().second;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string_view>& candidates) {
  const auto m = near_matches(typed, candidates);
  if (m.empty()) return {};
  // Offer every equally close candidate (up to three), sorted, so that "h100" lists each H100 variant.
  std::vector<std::string> best;
  for (const auto& [d, name] : m)
    if (d == m.front().first && best.size() < 3 && std::find(best.begin(), best.end(), name) == best.end()) best.push_back(name);
  std::sort(best.begin(), best.end());
  std::string out = "did you mean '" + best[0] + "'";
  for (std::size_t i = 1; i < best.size(); ++i) out += (i + 1 == best.size() ? " or '" : ", '") + best[i] + "'";
  return out + "?";
}

}  // namespace infracalc
