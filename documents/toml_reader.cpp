#include "documents/toml_reader.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <toml++/toml.h>

#include "documents/toml_guard.hpp"

namespace infracalc {

namespace {

void set_pos(Node& n, const toml::source_region& r) {
  n.line = static_cast<int>(r.begin.line);
  n.column = static_cast<int>(r.begin.column);
}

Node convert(const toml::node& in) {
  Node out;
  set_pos(out, in.source());
  if (const auto* t = in.as_table()) {
    out.kind = Node::Kind::table;
    out.members.reserve(t->size());
    for (const auto& [k, v] : *t) out.members.push_back({std::string(k.str()), convert(v)});
    // toml++ keeps tables ordered by key; restore document order so output follows the file.
    std::stable_sort(out.members.begin(), out.members.end(), [](const auto& a, const auto& b) {
      return a.second.line != b.second.line ? a.second.line < b.second.line : a.second.column < b.second.column;
    });
  } else if (const auto* a = in.as_array()) {
    out.kind = Node::Kind::array;
    out.items.reserve(a->size());
    for (const auto& v : *a) out.items.push_back(convert(v));
  } else if (const auto* s = in.as_string()) {
    out.kind = Node::Kind::string;
    out.str = s->get();
  } else if (const auto* i = in.as_integer()) {
    out.kind = Node::Kind::integer;
    out.integer = i->get();
    out.number = static_cast<double>(out.integer);
  } else if (const auto* f = in.as_floating_point()) {
    out.kind = Node::Kind::floating;
    out.number = f->get();
  } else if (const auto* b = in.as_boolean()) {
    out.kind = Node::Kind::boolean;
    out.boolean = b->get();
  } else if (const auto* d = in.as_date()) {
    out.kind = Node::Kind::date;
    out.date = {d->get().year, d->get().month, d->get().day};
  } else {
    // Times and date-times are not used by infracalc files; keep their text for the error message.
    out.kind = Node::Kind::string;
    out.str = "<time value>";
  }
  return out;
}

}  // namespace

Expected<Node> read_toml(std::string_view text, std::string_view source_name) {
  if (auto refused = non_ascii_outside_strings(text, source_name)) return std::move(*refused);
  try {
    const toml::table table = toml::parse(text, source_name);
    return convert(table);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    return Error{fmt::format("{}:{}:{}: {}", source_name, b.line, b.column, e.description()),
                 "fix the TOML syntax at that position"};
  }
}

}  // namespace infracalc
