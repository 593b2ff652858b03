// The parsed trees the build embeds: each equals the tree its text parses to, field for field, and a damaged tree
// is refused with an error, never read past its end.
#include <catch2/catch.hpp>

#include <string>

#include "catalog/embedded.hpp"
#include "documents/node_bytes.hpp"
#include "documents/toml_reader.hpp"

using namespace infracalc;

namespace {

// Every field of both trees, recursively; the first difference as a path, or empty when they are the same.
std::string difference(const Node& a, const Node& b, const std::string& path) {
  if (a.kind != b.kind) return path + ": kind";
  if (a.line != b.line || a.column != b.column) return path + ": position";
  if (a.str != b.str) return path + ": string";
  if (a.kind == Node::Kind::floating || a.kind == Node::Kind::integer) {
    if (!(a.number == b.number) && !(a.number != a.number && b.number != b.number)) return path + ": number";
  } else if (a.number != b.number) {
    return path + ": number";
  }
  if (a.integer != b.integer || a.boolean != b.boolean || a.date != b.date) return path + ": scalar";
  if (a.members.size() != b.members.size() || a.items.size() != b.items.size()) return path + ": size";
  for (std::size_t i = 0; i < a.members.size(); ++i) {
    if (a.members[i].first != b.members[i].first) return path + ": key " + a.members[i].first;
    if (auto d = difference(a.members[i].second, b.members[i].second, path + "." + a.members[i].first); !d.empty()) return d;
  }
  for (std::size_t i = 0; i < a.items.size(); ++i)
    if (auto d = difference(a.items[i], b.items[i], path + "[" + std::to_string(i) + "]"); !d.empty()) return d;
  return "";
}

}  // namespace

TEST_CASE("every embedded data file's stored tree is the tree its text parses to", "[catalog][embedded]") {
  std::size_t with_tree = 0;
  for (const auto& f : embedded_files()) {
    INFO(f.path);
    const auto parsed = read_toml(f.text, "data/" + std::string(f.path));
    REQUIRE(parsed.ok());
    CHECK_FALSE(f.tree.empty());
    with_tree += f.tree.empty() ? 0 : 1;
    const auto stored = embedded_tree(f);
    REQUIRE(stored.ok());
    CHECK(difference(parsed.value(), stored.value(), "") == "");
  }
  CHECK(with_tree == embedded_files().size());
}

TEST_CASE("a tree written to bytes reads back equal, NaN, infinities, dates and nesting included", "[documents][embedded]") {
  const auto doc = read_toml("a = nan\nb = -inf\nc = 2024-02-29\nd = [[1, 2], {x = \"é\\u0000z\"}]\n[t.u]\nv = true\nw = -9223372036854775808\n",
                             "t.toml");
  REQUIRE(doc.ok());
  const std::string bytes = node_to_bytes(doc.value());
  const auto back = node_from_bytes(bytes);
  REQUIRE(back.ok());
  CHECK(difference(doc.value(), back.value(), "") == "");
  CHECK(back.value().at_path("t.u.w")->integer == INT64_MIN);
  CHECK(back.value().find("d")->items[1].find("x")->str == std::string("é\0z", 4));
}

TEST_CASE("a damaged tree is refused: every truncation, a wrong version, trailing bytes, a huge count", "[documents][embedded]") {
  const auto doc = read_toml("id = \"x\"\n[a]\nb = [1, 2.5, \"c\"]\nd = 2025-01-01\n", "t.toml");
  REQUIRE(doc.ok());
  const std::string bytes = node_to_bytes(doc.value());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    INFO(n);
    const auto r = node_from_bytes(std::string_view(bytes).substr(0, n));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("damaged") != std::string::npos);
  }
  CHECK_FALSE(node_from_bytes(bytes + "x").ok());
  std::string other = bytes;
  other[0] = static_cast<char>(other[0] + 1);
  CHECK_FALSE(node_from_bytes(other).ok());
  // A root table claiming 2^62 members in a few bytes: version, kind table, fields (members), line, column, count.
  CHECK_FALSE(node_from_bytes(std::string("\x02\x00\x20\x00\x00", 5) + std::string(8, '\xff') + "\x3f").ok());
}
