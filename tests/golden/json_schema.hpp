// A JSON Schema validator for the keywords infracalc's schemas use (draft 2020-12: type, const, enum, properties,
// patternProperties, required, additionalProperties, items, minimum, anyOf): the golden tests check every calculator output against
// `infracalc schema PLUGIN CALC`.
#pragma once

#include <cmath>
#include <regex>
#include <string>

#include "documents/node.hpp"

namespace golden {

/// Where `doc` breaks `schema` ("results.kv_total.unit: expected const \"B\""), or empty when it conforms.
inline std::string schema_violation(const infracalc::Node& doc, const infracalc::Node& schema, const std::string& path = "$") {
  using K = infracalc::Node::Kind;
  auto is_type = [&](const std::string& t) {
    if (t == "object") return doc.kind == K::table;
    if (t == "array") return doc.kind == K::array;
    if (t == "string") return doc.kind == K::string;
    if (t == "number") return doc.kind == K::integer || doc.kind == K::floating;
    if (t == "integer") return doc.kind == K::integer || (doc.kind == K::floating && std::floor(doc.number) == doc.number);
    if (t == "boolean") return doc.kind == K::boolean;
    if (t == "null") return doc.kind == K::null;
    return false;
  };
  auto same = [](const infracalc::Node& a, const infracalc::Node& b) {
    if (a.is_number() && b.is_number()) return a.number == b.number;
    if (a.kind != b.kind) return false;
    if (a.kind == K::string) return a.str == b.str;
    if (a.kind == K::boolean) return a.boolean == b.boolean;
    return a.kind == K::null;
  };
  if (const auto* any = schema.find("anyOf")) {
    std::string first;
    for (const auto& s : any->items) {
      const std::string why = schema_violation(doc, s, path);
      if (why.empty()) return "";
      if (first.empty()) first = why;
    }
    return path + ": matches none of anyOf (first: " + first + ")";
  }
  if (const auto* t = schema.find("type")) {
    bool ok = false;
    if (t->kind == K::string) ok = is_type(t->str);
    for (const auto& i : t->items) ok = ok || is_type(i.str);
    if (!ok) return path + ": wrong type";
  }
  if (const auto* c = schema.find("const"); c != nullptr && !same(doc, *c)) return path + ": not the constant the schema names";
  if (const auto* e = schema.find("enum")) {
    bool ok = false;
    for (const auto& i : e->items) ok = ok || same(doc, i);
    if (!ok) return path + ": not one of the enum";
  }
  if (const auto* m = schema.find("minimum"); m != nullptr && doc.is_number() && doc.number < m->number) return path + ": below minimum";
  if (doc.kind == K::table) {
    if (const auto* req = schema.find("required"))
      for (const auto& r : req->items)
        if (doc.find(r.str) == nullptr) return path + ": lacks required \"" + r.str + "\"";
    const auto* props = schema.find("properties");
    const auto* patterns = schema.find("patternProperties");
    const auto* extra = schema.find("additionalProperties");
    for (const auto& [k, v] : doc.members) {
      const infracalc::Node* sub = props != nullptr ? props->find(k) : nullptr;
      if (sub == nullptr && patterns != nullptr)
        for (const auto& [pattern, p_schema] : patterns->members)
          if (std::regex_search(k, std::regex(pattern))) {
            sub = &p_schema;
            break;
          }
      if (sub == nullptr && extra != nullptr) {
        if (extra->kind == K::boolean) {
          if (!extra->boolean) return path + ": \"" + k + "\" is not allowed";
          continue;
        }
        sub = extra;
      }
      if (sub != nullptr)
        if (std::string why = schema_violation(v, *sub, path + "." + k); !why.empty()) return why;
    }
  }
  if (doc.kind == K::array)
    if (const auto* items = schema.find("items"))
      for (std::size_t i = 0; i < doc.items.size(); ++i)
        if (std::string why = schema_violation(doc.items[i], *items, path + "[" + std::to_string(i) + "]"); !why.empty()) return why;
  return "";
}

}  // namespace golden
