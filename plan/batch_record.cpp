#include "plan/batch_record.hpp"

#include <algorithm>
#include <filesystem>

#include "documents/json.hpp"
#include "plan/document.hpp"
#include "plan/output.hpp"
#include "plugins/registry.hpp"
#include "units/format.hpp"
#include "units/suggest.hpp"

namespace infracalc {

namespace {

// The file a record's input names, confined to --files-from DIR: a batch stream is often untrusted, so a record
// never reads (or quotes in an error) a file outside the directory the person running batch chose. A relative
// path is taken relative to DIR; symbolic links are resolved before the check.
std::string confined_file(const std::string& key, const std::string& value, std::string_view files_from) {
  namespace fs = std::filesystem;
  if (files_from.empty())
    throw UserError{{"input \"" + key + "\" names a file; batch records read files only under a directory given with --files-from DIR",
                     "run `infracalc batch --files-from DIR` with the file in DIR"}};
  std::error_code ec;
  const fs::path root = fs::canonical(fs::path(files_from), ec);
  if (ec) throw UserError{{"--files-from " + std::string(files_from) + ": " + ec.message(), "pass an existing directory"}};
  const fs::path file = fs::weakly_canonical(root / fs::path(value), ec);
  const auto [r, f] = std::mismatch(root.begin(), root.end(), file.begin(), file.end());
  if (ec || r != root.end() || f == file.end())
    throw UserError{{"input \"" + key + "\": \"" + value + "\" lies outside --files-from " + std::string(files_from),
                     "name a file under that directory (a path relative to it)"}};
  return file.string();
}

// A record's scalar as the text a flag would carry: a string as it is, a number in machine form, true or false.
// `what` and `key` name it in an error ("input" and "tokens": input "tokens"), put together only then.
std::string record_scalar_text(std::string_view what, const std::string& key, const Node& v, std::string_view hint) {
  switch (v.kind) {
    case Node::Kind::string: return v.str;
    case Node::Kind::integer:
    case Node::Kind::floating: return format_machine(v.number);
    case Node::Kind::boolean: return v.boolean ? "true" : "false";
    default:
      throw UserError{{std::string(what) + " \"" + key + "\" must be a string, number or boolean, got " + std::string(v.kind_name()),
                       std::string(hint)}};
  }
}

// Reads one record's calculation and inputs; throws UserError naming the field.
Result run_record(const Node& rec, const RunOptions& ro, std::string_view files_from) {
  if (!rec.is_table()) throw UserError{{"a record must be a JSON object", "e.g. {\"plugin\": \"kv\", \"calculator\": \"size\", \"inputs\": {...}}"}};
  const Node* plugin = rec.find("plugin");
  const Node* calc = rec.find("calculator");
  if (plugin == nullptr || plugin->kind != Node::Kind::string)
    throw UserError{{"missing \"plugin\" (a string)", "every record names a plugin and a calculator"}};
  if (calc == nullptr || calc->kind != Node::Kind::string)
    throw UserError{{"missing \"calculator\" (a string)", "every record names a plugin and a calculator"}};
  const Plugin* p = find_plugin(plugin->str);
  if (p == nullptr) {
    std::vector<std::string_view> names;
    for (const auto& e : plugin_table()) names.push_back(e.name);
    throw UserError{{"unknown plugin '" + plugin->str + "'", did_you_mean(plugin->str, names)}};
  }
  const Calculator* c = p->find(calc->str);
  if (c == nullptr) {
    std::vector<std::string_view> names;
    for (const auto& x : p->calculators) names.push_back(x.name);
    throw UserError{{"unknown calculator '" + calc->str + "' in plugin " + plugin->str, did_you_mean(calc->str, names)}};
  }
  for (const auto& [k, v] : rec.members)
    if (k != "plugin" && k != "calculator" && k != "inputs" && k != "id")
      throw UserError{{"unknown record key \"" + k + "\"", "records have plugin, calculator, inputs and an optional id"}};
  RawInputs raw;
  if (const Node* in = rec.find("inputs")) {
    if (!in->is_table()) throw UserError{{"\"inputs\" must be an object", "e.g. {\"tokens\": \"8000\", \"model\": \"llama-3-70b\"}"}};
    raw.reserve(in->members.size());
    for (const auto& [k, v] : in->members)
      raw.emplace_back(k, record_scalar_text("input", k, v, "write quantities as strings with units: \"3.35 TB/s\""));
  }
  for (auto& [k, v] : raw)
    for (const auto& input : c->inputs)
      if (input.names_file && input.name == k) v = confined_file(k, v, files_from);
  return run_calculator(*p, *c, raw, ro);
}

// A plan record: {"plan": "FILE.toml", "set": {"section.key": VALUE, ...}, "id": ...}. The file, like an input that
// names one, lies under --files-from DIR; "set" holds the overrides of `plan --set`. Returns the JSON of `plan --json`.
std::string run_plan_record(const Node& rec, const RunOptions& ro, std::string_view files_from, const PlanRecordRunner& plan) {
  const Node* file = rec.find("plan");
  if (file->kind != Node::Kind::string) throw UserError{{"\"plan\" must be a string (the plan file)", "e.g. {\"plan\": \"serve.toml\"}"}};
  for (const auto& [k, v] : rec.members)
    if (k != "plan" && k != "set" && k != "id")
      throw UserError{{"unknown plan record key \"" + k + "\"", "plan records have plan, an optional set and an optional id"}};
  std::vector<std::string> sets;
  if (const Node* set = rec.find("set")) sets = record_sets(*set);
  const std::string path = confined_file("plan", file->str, files_from);
  if (!plan) throw UserError{{"plan records are not run here", "run the plan with `infracalc batch` or `infracalc plan`"}};
  return plan(path, sets, ro);
}

}  // namespace

std::vector<std::string> record_sets(const Node& set) {
  if (!set.is_table()) throw UserError{{"\"set\" must be an object", "e.g. {\"workload.rate\": \"50/s\"}"}};
  std::vector<std::string> sets;
  for (const auto& [k, v] : set.members) sets.push_back(k + "=" + record_scalar_text("set", k, v, "e.g. {\"workload.rate\": \"50/s\"}"));
  return sets;
}

void append_batch_error(std::string& out, std::size_t record, const Node* id, const Error& e) {
  writers::Document doc;
  doc.head = {{"schema_version", std::int64_t{1}}};
  if (record > 0) doc.head.push_back({"record", static_cast<std::int64_t>(record)});
  if (id != nullptr && id->kind == Node::Kind::string) doc.head.push_back({"id", id->str});
  doc.head.push_back({"error", e.message});
  doc.head.push_back({"hint", e.hint});
  writers::write_json(out, doc);
  out += '\n';
}

std::optional<Error> process_batch_record(std::string_view text, std::size_t record, const RunOptions& ro, std::string& out,
                                          std::string_view files_from, const std::vector<std::string>& fields,
                                          const PlanRecordRunner& plan) {
  auto doc = read_json(text, "record " + std::to_string(record));
  const Node* id = doc ? doc->find("id") : nullptr;
  try {
    if (!doc) throw UserError{doc.error()};
    if (doc->is_table() && doc->find("plan") != nullptr) {
      // `plan --json` is one line that opens with schema_version; the record number follows it.
      const std::string json = run_plan_record(doc.value(), ro, files_from, plan);
      constexpr std::string_view head = "{\"schema_version\": 1, ";
      out += head;
      out += "\"record\": " + std::to_string(record) + ", ";
      out += std::string_view(json).substr(json.rfind(head, 0) == 0 ? head.size() : 1);
    } else {
      Result r = run_record(doc.value(), ro, files_from);
      writers::keep_fields(r, fields);
      writers::append_result_json(out, r, record);
    }
    if (id != nullptr && id->kind == Node::Kind::string) {
      out.pop_back();  // the closing brace
      out += ", \"id\": ";
      append_json_string(out, id->str);
      out += "}";
    }
    out += '\n';
    return std::nullopt;
  } catch (const UserError& e) {
    append_batch_error(out, record, id, e.error);
    return e.error;
  }
}

}  // namespace infracalc
