#include <fmt/format.h>

#include "cli/commands.hpp"
#include "plan/machine_units.hpp"
#include "documents/json.hpp"
#include "plugins/registry.hpp"
#include "units/printable.hpp"
#include "units/suggest.hpp"

namespace infracalc::cli {

namespace {

// Schemas are written compact and then indented (pretty), so that the files in docs/schema/ read and diff well.
std::string quote(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

std::string object(const std::vector<std::pair<std::string_view, std::string>>& members) {
  std::string out = "{";
  for (const auto& [k, v] : members) out += (out.size() > 1 ? "," : "") + quote(k) + ":" + v;
  return out + "}";
}

std::string strings(const std::vector<std::string_view>& items) {
  std::string out = "[";
  for (const auto& i : items) out += (out.size() > 1 ? "," : "") + quote(i);
  return out + "]";
}

const std::string kString = R"({"type":"string"})";

std::string quantity_schema(std::string_view unit) {
  const std::string u = unit.empty() ? kString : object({{"const", quote(unit)}});
  return object({{"type", quote("object")},
                 {"required", strings({"value", "unit"})},
                 {"properties", object({{"value", R"({"type":"number"})"}, {"unit", u}})},
                 {"additionalProperties", "false"}});
}

std::string input_schema(const std::string& value, std::string_view unit, bool has_unit) {
  std::vector<std::pair<std::string_view, std::string>> props = {{"value", value}};
  if (has_unit) props.emplace_back("unit", unit.empty() ? kString : object({{"const", quote(unit)}}));
  props.emplace_back("from", object({{"enum", strings({"flag", "catalog", "default", "derived"})}}));
  props.emplace_back("id", kString);
  return object({{"type", quote("object")}, {"required", strings({"value", "from"})}, {"properties", object(props)},
                 {"additionalProperties", "false"}});
}

std::string generic_input() {
  std::vector<std::pair<std::string_view, std::string>> props = {{"value", R"({"type":["number","string","boolean"]})"},
                                                                 {"unit", kString},
                                                                 {"from", object({{"enum", strings({"flag", "catalog", "default", "derived"})}})},
                                                                 {"id", kString}};
  return object({{"type", quote("object")}, {"required", strings({"value", "from"})}, {"properties", object(props)},
                 {"additionalProperties", "false"}});
}

std::string declared_input(const Input& in) {
  switch (in.kind) {
    case InputKind::quantity:
    case InputKind::integer:
      return input_schema(R"({"type":"number"})", in.kind == InputKind::integer && in.dim.dimensionless() ? "1"
                                                  : writers::machine_quantity(in.name, Quantity{1, in.dim, in.point}).unit, true);
    case InputKind::choice: return input_schema(object({{"enum", strings(in.choices)}}), "", false);
    case InputKind::text: return input_schema(kString, "", false);
    case InputKind::flag: break;
  }
  return input_schema(R"({"type":["number","string","boolean"]})", "", false);
}

std::string result_document(const Plugin* p, const Calculator* c) {
  const std::string verdict = object({{"type", quote("object")},
                                      {"required", strings({"ok", "text"})},
                                      {"properties", object({{"ok", R"({"type":"boolean"})"}, {"text", kString}})},
                                      {"additionalProperties", "false"}});
  const std::string column = object({{"type", quote("object")},
                                     {"required", strings({"key"})},
                                     {"properties", object({{"key", kString}, {"unit", kString}})},
                                     {"additionalProperties", "false"}});
  const std::string table = object(
      {{"type", quote("object")},
       {"required", strings({"title", "columns", "rows"})},
       {"properties", object({{"title", kString},
                              {"columns", object({{"type", quote("array")}, {"items", column}})},
                              {"rows", object({{"type", quote("array")},
                                               {"items", object({{"type", quote("array")}, {"items", R"({"type":["number","string"]})"}})}})}})},
       {"additionalProperties", "false"}});
  const std::string provenance = object(
      {{"type", quote("object")},
       {"required", strings({"id", "field", "as_of", "source"})},
       {"properties", object({{"id", kString}, {"field", kString}, {"as_of", kString}, {"source", kString}, {"basis", kString},
                              {"note", kString}, {"overlay", R"({"const":true})"}})},
       {"additionalProperties", "false"}});
  std::string inputs, results;
  std::string verdicts = object({{"type", quote("object")}, {"additionalProperties", verdict}});
  std::string tables = object({{"type", quote("object")}, {"additionalProperties", table}});
  if (c == nullptr) {
    inputs = object({{"type", quote("object")}, {"additionalProperties", generic_input()}});
    results = object({{"type", quote("object")}, {"additionalProperties", quantity_schema("")}});
  } else {
    // Every declared input and output by name, in the unit its JSON carries; a calculator may report inputs it
    // derived (compute_dtype from --dtype), which take the general form. An output may be absent (--fields, or
    // a figure the inputs do not determine), never undeclared.
    std::vector<std::pair<std::string_view, std::string>> in_props, out_props;
    for (const auto& in : c->inputs) in_props.emplace_back(in.name, declared_input(in));
    for (const auto& o : c->outputs) out_props.emplace_back(o.name, quantity_schema(writers::machine_quantity(o.name, Quantity{1, o.dim, o.point}).unit));
    inputs = object({{"type", quote("object")}, {"properties", object(in_props)}, {"additionalProperties", generic_input()}});
    results = object({{"type", quote("object")}, {"properties", object(out_props)}, {"additionalProperties", "false"}});
    // The declared verdicts and tables, nothing else; a verdict key with `*` (formed at run time) is a pattern.
    const auto described = [](const std::string& schema, std::string_view help) {
      return schema.substr(0, schema.size() - 1) + ",\"description\":" + quote(help) + "}";
    };
    std::vector<std::pair<std::string_view, std::string>> verdict_props, verdict_patterns, table_props;
    std::vector<std::string> patterns;
    patterns.reserve(c->verdicts.size());
    for (const auto& v : c->verdicts) {
      const auto star = v.key.find('*');
      if (star == std::string_view::npos) {
        verdict_props.emplace_back(v.key, described(verdict, v.help));
        continue;
      }
      patterns.push_back("^" + std::string(v.key.substr(0, star)) + "[a-z0-9_]+" + std::string(v.key.substr(star + 1)) + "$");
      verdict_patterns.emplace_back(patterns.back(), described(verdict, v.help));
    }
    for (const auto& t : c->tables) table_props.emplace_back(t.name, described(table, t.help));
    std::vector<std::pair<std::string_view, std::string>> vmembers = {{"type", quote("object")}, {"properties", object(verdict_props)}};
    if (!verdict_patterns.empty()) vmembers.emplace_back("patternProperties", object(verdict_patterns));
    vmembers.emplace_back("additionalProperties", "false");
    verdicts = object(vmembers);
    tables = object({{"type", quote("object")}, {"properties", object(table_props)}, {"additionalProperties", "false"}});
  }
  return object({{"type", quote("object")},
                 {"required", strings({"schema_version", "plugin", "calculator", "inputs", "results", "verdicts", "tables", "notes", "provenance"})},
                 {"properties", object({{"schema_version", R"({"const":1})"},
                                        {"record", R"({"type":"integer","minimum":1})"},
                                        {"id", kString},
                                        {"plugin", p == nullptr ? kString : object({{"const", quote(p->name)}})},
                                        {"calculator", c == nullptr ? kString : object({{"const", quote(c->name)}})},
                                        {"inputs", inputs},
                                        {"results", results},
                                        {"verdicts", verdicts},
                                        {"tables", tables},
                                        {"notes", object({{"type", quote("array")}, {"items", kString}})},
                                        {"provenance", object({{"type", quote("array")}, {"items", provenance}})}})},
                 {"additionalProperties", "false"}});
}

// A batch record that failed: its number, its id when it had one, the error and the hint.
std::string error_document() {
  return object({{"type", quote("object")},
                 {"required", strings({"schema_version", "record", "error", "hint"})},
                 {"properties", object({{"schema_version", R"({"const":1})"},
                                        {"record", R"({"type":"integer","minimum":1})"},
                                        {"id", kString},
                                        {"error", kString},
                                        {"hint", kString}})},
                 {"additionalProperties", "false"}});
}

// Indents compact JSON two spaces per level (strings are copied as they are).
std::string pretty(std::string_view json) {
  std::string out;
  int depth = 0;
  bool in_string = false;
  auto newline = [&] { out += "\n" + std::string(static_cast<std::size_t>(2 * depth), ' '); };
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char ch = json[i];
    if (in_string) {
      out += ch;
      if (ch == '\\') out += json[++i];
      else if (ch == '"') in_string = false;
      continue;
    }
    if (ch == '"') {
      in_string = true;
      out += ch;
    } else if (ch == '{' || ch == '[') {
      const char close = ch == '{' ? '}' : ']';
      if (i + 1 < json.size() && json[i + 1] == close) {
        out += ch;
        out += close;
        ++i;
        continue;
      }
      out += ch;
      ++depth;
      newline();
    } else if (ch == '}' || ch == ']') {
      --depth;
      newline();
      out += ch;
    } else if (ch == ',') {
      out += ch;
      newline();
    } else if (ch == ':') {
      out += ": ";
    } else {
      out += ch;
    }
  }
  return out + "\n";
}

}  // namespace

std::string result_schema(const Plugin* p, const Calculator* c) {
  std::vector<std::pair<std::string_view, std::string>> top = {
      {"$schema", quote("https://json-schema.org/draft/2020-12/schema")}};
  if (c == nullptr) {
    top.emplace_back("title", quote("infracalc JSON output: a result document (every calculator, calc, batch) or a failed batch record"));
    top.emplace_back("anyOf", "[" + result_document(nullptr, nullptr) + "," + error_document() + "]");
  } else {
    const std::string title = fmt::format("infracalc {} {}: result document", p->name, c->name);
    top.emplace_back("title", quote(title));
    const std::string doc = result_document(p, c);
    // The calculator's document, its members spliced in after the title.
    return pretty(object(top).substr(0, object(top).size() - 1) + "," + doc.substr(1));
  }
  return pretty(object(top));
}

ExitStatus run_schema(const std::vector<std::string>& words) {
  if (words.empty()) {
    emit(result_schema(nullptr, nullptr));
    return ExitStatus::ok;
  }
  std::vector<std::string_view> names;
  for (const auto& e : plugin_table()) names.push_back(e.name);
  const Plugin* p = find_plugin(words[0]);
  if (p == nullptr) throw UserError{{"schema: unknown plugin '" + printable(words[0]) + "'", did_you_mean(words[0], names)}};
  if (words.size() < 2) throw UserError{{"schema " + std::string(p->name) + ": which calculator?", "e.g. infracalc schema kv size"}};
  const Calculator* c = p->find(words[1]);
  if (c == nullptr) {
    std::vector<std::string_view> calcs;
    for (const auto& x : p->calculators) calcs.push_back(x.name);
    throw UserError{{"schema: " + std::string(p->name) + " has no calculator '" + printable(words[1]) + "'", did_you_mean(words[1], calcs)}};
  }
  emit(result_schema(p, c));
  return ExitStatus::ok;
}

}  // namespace infracalc::cli
