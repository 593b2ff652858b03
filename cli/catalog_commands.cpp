#include <algorithm>
#include <cctype>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "plugins/catalog/check.hpp"
#include "plugins/core/json.hpp"
#include "units/format.hpp"

namespace infracalc::cli {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// A field value for display: quantities formatted, text as is.
std::string show_value(const Node& v, const FormatOptions& f) {
  if (v.kind == Node::Kind::string) {
    auto q = parse_quantity(v.str);
    if (q && !v.str.empty() && (std::isdigit(static_cast<unsigned char>(v.str[0])) || v.str[0] == '$' || v.str[0] == '-'))
      return format_human(*q, f) + (format_human(*q, f) == v.str ? "" : "  (" + v.str + ")");
    return v.str;
  }
  if (v.kind == Node::Kind::boolean) return v.boolean ? "true" : "false";
  if (v.kind == Node::Kind::date) return v.date.str();
  if (v.is_number()) return format_count(v.number, f.digits);
  if (v.kind == Node::Kind::array) {
    std::string out;
    for (const auto& i : v.items) out += (out.empty() ? "" : ", ") + show_value(i, f);
    return "[" + out + "]";
  }
  return std::string(v.kind_name());
}

void json_value(std::string& out, const Node& v) {
  if (v.kind == Node::Kind::string) {
    auto q = parse_quantity(v.str);
    if (q && !v.str.empty() && (std::isdigit(static_cast<unsigned char>(v.str[0])) || v.str[0] == '$' || v.str[0] == '-')) {
      out += "\"value\": " + format_machine(q->value) + ", \"unit\": ";
      append_json_string(out, machine_unit(*q));
      out += ", \"text\": ";
      append_json_string(out, v.str);
    } else {
      out += "\"value\": ";
      append_json_string(out, v.str);
    }
  } else if (v.is_number()) {
    out += "\"value\": " + format_machine(v.number) + ", \"unit\": \"1\"";
  } else if (v.kind == Node::Kind::boolean) {
    out += std::string("\"value\": ") + (v.boolean ? "true" : "false");
  } else if (v.kind == Node::Kind::date) {
    out += "\"value\": ";
    append_json_string(out, v.date.str());
  } else {
    out += "\"value\": ";
    append_json_string(out, show_value(v, {}));
  }
}

std::string entry_json(const Entry& e) {
  std::string out = "{\"schema_version\": 1, \"id\": ";
  append_json_string(out, e.id());
  out += ", \"name\": ";
  append_json_string(out, e.name());
  out += ", \"kind\": ";
  append_json_string(out, e.kind());
  out += ", \"file\": ";
  append_json_string(out, e.file());
  out += ", \"as_of\": ";
  append_json_string(out, e.as_of().str());
  out += ", \"sources\": [";
  for (std::size_t i = 0; i < e.sources().size(); ++i) {
    out += i ? ", " : "";
    append_json_string(out, e.sources()[i]);
  }
  out += std::string("], \"overlay\": ") + (e.overlay() ? "true" : "false") + ", \"fields\": {";
  bool first = true;
  for_each_field(e, [&](const std::string& path, const FieldRef& ref) {
    out += first ? "" : ", ";
    first = false;
    append_json_string(out, path);
    out += ": {";
    json_value(out, *ref.value);
    out += ", \"as_of\": ";
    append_json_string(out, ref.provenance.as_of);
    out += ", \"source\": ";
    append_json_string(out, ref.provenance.source);
    if (!ref.provenance.basis.empty()) {
      out += ", \"basis\": ";
      append_json_string(out, ref.provenance.basis);
    }
    if (!ref.provenance.note.empty()) {
      out += ", \"note\": ";
      append_json_string(out, ref.provenance.note);
    }
    out += "}";
  });
  return out + "}}\n";
}

ExitStatus list_kind(const std::vector<std::string_view>& kinds, const ListFilter& f, const GlobalOptions& g) {
  std::optional<Quantity> min_mem;
  if (!f.min_memory.empty()) {
    auto q = parse_input(f.min_memory, {dims::information, false}, "--min-memory");
    if (!q) throw UserError{q.error()};
    min_mem = q.value();
  }
  std::vector<const Entry*> rows;
  for (auto kind : kinds)
    for (const Entry* e : Catalog::instance().all(kind)) {
      if (!f.vendor.empty()) {
        const auto v = e->text("vendor");
        if (!v || lower(*v) != lower(f.vendor)) continue;
      }
      if (!f.kind.empty() && e->kind() != f.kind) {
        const auto t = e->text("type");
        if (!t || lower(*t) != lower(f.kind)) continue;
      }
      if (min_mem) {
        auto m = e->quantity("memory_capacity", {dims::information, false});
        if (!m || m->value < min_mem->value) continue;
      }
      rows.push_back(e);
    }
  std::sort(rows.begin(), rows.end(), [](const Entry* a, const Entry* b) { return a->id() < b->id(); });
  if (g.out.format == OutputFormat::json) {
    std::string out = "{\"schema_version\": 1, \"entries\": [";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      out += i ? ", " : "";
      out += "{\"id\": ";
      append_json_string(out, rows[i]->id());
      out += ", \"name\": ";
      append_json_string(out, rows[i]->name());
      out += ", \"kind\": ";
      append_json_string(out, rows[i]->kind());
      out += ", \"as_of\": ";
      append_json_string(out, rows[i]->as_of().str());
      out += "}";
    }
    emit(out + "]}\n");
    return ExitStatus::ok;
  }
  if (g.out.format == OutputFormat::csv) {
    std::string out = "id,kind,name,as_of\n";
    for (const Entry* e : rows) out += e->id() + "," + e->kind() + ",\"" + e->name() + "\"," + e->as_of().str() + "\n";
    emit(out);
    return ExitStatus::ok;
  }
  std::size_t w = 4;
  for (const Entry* e : rows) w = std::max(w, e->id().size());
  std::string out;
  for (const Entry* e : rows)
    out += fmt::format("{:<{}}  {:<12} {}  (as of {}){}\n", e->id(), w, e->kind(), e->name(), e->as_of().str(),
                       e->overlay() ? " [overlay]" : "");
  emit(out);
  return ExitStatus::ok;
}

}  // namespace

ExitStatus run_hw_list(const ListFilter& f, const GlobalOptions& g) { return list_kind({"accelerator", "system"}, f, g); }
ExitStatus run_model_list(const ListFilter& f, const GlobalOptions& g) { return list_kind({"model"}, f, g); }

ExitStatus run_entry_show(const std::string& id, const std::vector<std::string_view>& kinds, const GlobalOptions& g) {
  const Entry& e = Catalog::instance().get(id, kinds, kinds.front() == "model" ? "model show" : "hw show");
  if (g.out.format == OutputFormat::json) {
    emit(entry_json(e));
    return ExitStatus::ok;
  }
  std::string out = fmt::format("{}  {}  ({})\n  file {}{}\n  as of {}\n", e.id(), e.name(), e.kind(), e.file(),
                                e.overlay() ? " [overlay]" : "", e.as_of().str());
  for (const auto& s : e.sources()) out += "  source: " + s + "\n";
  std::vector<std::array<std::string, 4>> rows;
  for_each_field(e, [&](const std::string& path, const FieldRef& ref) {
    std::string src = ref.provenance.source == fmt::format("{}", fmt::join(e.sources(), "; ")) ? "" : ref.provenance.source;
    std::string tag = ref.provenance.basis.empty() ? "" : "[" + ref.provenance.basis + "] ";
    if (!ref.provenance.note.empty()) tag += ref.provenance.note + (src.empty() ? "" : "; ");
    rows.push_back({path, show_value(*ref.value, g.out.number), ref.provenance.as_of, tag + src});
  });
  std::size_t w0 = 0, w1 = 0;
  for (const auto& r : rows) {
    w0 = std::max(w0, r[0].size());
    w1 = std::max(w1, r[1].size());
  }
  out += "\n";
  for (const auto& r : rows) {
    std::string line = fmt::format("  {:<{}}  {:<{}}  {}  {}", r[0], w0, r[1], w1, r[2], r[3]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  emit(out);
  return ExitStatus::ok;
}

ExitStatus run_hw_compare(const std::vector<std::string>& ids, const GlobalOptions& g) {
  if (ids.size() < 2) throw UserError{{"hw compare needs at least two ids", "e.g. infracalc hw compare h100-sxm h200-sxm"}};
  std::vector<const Entry*> entries;
  for (const auto& id : ids) entries.push_back(&Catalog::instance().get(id, {"accelerator", "system"}, "hw compare"));
  std::vector<std::string> paths;
  for (const Entry* e : entries)
    for_each_field(*e, [&](const std::string& p, const FieldRef&) {
      if (std::find(paths.begin(), paths.end(), p) == paths.end()) paths.push_back(p);
    });
  if (g.out.format == OutputFormat::json) {
    std::string out = "{\"schema_version\": 1, \"compare\": [";
    for (std::size_t i = 0; i < entries.size(); ++i) {
      std::string one = entry_json(*entries[i]);
      one.pop_back();
      out += (i ? ", " : "") + one;
    }
    emit(out + "]}\n");
    return ExitStatus::ok;
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head = {"field"};
  for (const Entry* e : entries) head.push_back(e->id());
  rows.push_back(head);
  for (const auto& p : paths) {
    std::vector<std::string> r = {p};
    for (const Entry* e : entries) {
      auto f = e->field(p);
      r.push_back(f ? show_value(*f->value, g.out.number) : "-");
    }
    rows.push_back(r);
  }
  std::vector<std::size_t> w(head.size(), 0);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], std::min<std::size_t>(r[i].size(), 28));
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      std::string cell = r[i].size() > 28 ? r[i].substr(0, 27) + "~" : r[i];
      line += fmt::format("{:<{}}  ", cell, w[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  emit(out);
  return ExitStatus::ok;
}

ExitStatus run_data_check(const GlobalOptions& g) {
  const auto findings = check_catalog(Catalog::instance(), Date::today());
  std::size_t errors = 0;
  std::string out;
  for (const auto& f : findings) {
    errors += f.error ? 1 : 0;
    out += std::string(f.error ? "error: " : "warning: ") + (f.where.empty() ? "" : f.where + ": ") + f.message + "\n";
  }
  const auto n = Catalog::instance().index().size();
  if (g.out.format == OutputFormat::json) {
    std::string j = "{\"schema_version\": 1, \"files\": " + std::to_string(n) + ", \"errors\": " + std::to_string(errors) + ", \"findings\": [";
    for (std::size_t i = 0; i < findings.size(); ++i) {
      j += i ? ", " : "";
      j += "{\"where\": ";
      append_json_string(j, findings[i].where);
      j += ", \"message\": ";
      append_json_string(j, findings[i].message);
      j += std::string(", \"error\": ") + (findings[i].error ? "true" : "false") + "}";
    }
    emit(j + "]}\n");
  } else {
    std::fputs(out.c_str(), stderr);
    const std::string summary = fmt::format("data check: {} files, {} errors, {} warnings\n", n, errors, findings.size() - errors);
    if (errors == 0) emit(summary);
    else std::fputs(summary.c_str(), stderr);
  }
  return errors == 0 ? ExitStatus::ok : ExitStatus::usage;
}

}  // namespace infracalc::cli
