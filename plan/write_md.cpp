// The Markdown writer of documents: a heading, a table of the values and verdicts, then each section people read.
#include <cctype>

#include "plan/document.hpp"
#include "plan/text_table.hpp"

namespace infracalc::writers {

namespace {

std::string capitalised(std::string text) {
  if (!text.empty()) text.front() = static_cast<char>(std::toupper(static_cast<unsigned char>(text.front())));
  return text;
}

std::string verdict_md(const Verdict& v) { return std::string(v.ok ? "yes" : "no") + " — " + v.text; }

template <class List>
std::string sources_md(const List& list) {
  std::string out;
  for (const auto& p : list) out += "- " + md_escape(p.id + "." + p.field) + " (as of " + p.as_of + "): " + md_escape(p.source) + "\n";
  return out;
}

}  // namespace

std::string write_md(const Document& doc, const OutputOptions& opt) {
  const FormatOptions& nf = opt.number;
  std::string out = "## " + doc.title + "\n\n";
  for (const auto& p : doc.about) out += md_escape(p) + "\n\n";
  bool first = true;
  auto block = [&](const std::string& text) {
    out += (first ? "" : "\n") + text;
    first = false;
  };
  // The untitled values and verdicts (a calculator's results) share one table.
  std::vector<std::vector<std::string>> results;
  bool open = false;
  auto flush = [&] {
    if (open) block(md_table({"result", "value"}, results));
    results.clear();
    open = false;
  };
  for (const auto& s : doc.sections) {
    if (!s.human) continue;
    if (s.kind == SectionKind::values || (s.kind == SectionKind::verdicts && s.title.empty())) {
      open = true;
      for (const auto& v : s.values) results.push_back({v.key, human_with_binary(v.q, v.unit_hint, nf)});
      for (const auto& v : s.verdicts) results.push_back({v.key, verdict_md(v)});
      continue;
    }
    flush();
    switch (s.kind) {
      case SectionKind::verdicts: {
        std::vector<std::vector<std::string>> body;
        for (const auto& v : s.verdicts) body.push_back({v.key, verdict_md(v)});
        if (!body.empty()) block("### " + md_escape(capitalised(s.title)) + "\n\n" + md_table({"check", "value"}, body));
        break;
      }
      case SectionKind::fields: {
        std::vector<std::vector<std::string>> body;
        for (const auto& f : s.fields) {
          body.push_back({f.key, f.shown});
          body.back().insert(body.back().end(), f.columns.begin(), f.columns.end());
        }
        // Without headings of its own, a fields section's table is headed key, value and blank further columns.
        std::vector<std::string> head = s.head;
        if (head.empty() && !body.empty()) {
          head = {"key", "value"};
          head.resize(body.front().size());
        }
        if (!body.empty()) block((s.title.empty() ? "" : "### " + md_escape(capitalised(s.title)) + "\n\n") + md_table(head, body));
        break;
      }
      case SectionKind::tables:
        for (const auto& t : s.tables) {
          std::vector<std::string> head;
          for (const auto& c : t.columns) head.push_back(c.key);
          std::vector<std::vector<std::string>> body;
          for (const auto& row : t.rows) {
            body.emplace_back();
            for (std::size_t i = 0; i < row.size(); ++i) body.back().push_back(human_cell(row[i], t.columns[i].unit_hint, nf));
          }
          block("### " + md_escape(t.title) + "\n\n" + md_table(head, body));
        }
        break;
      case SectionKind::inputs: {
        std::string line = "**" + capitalised(s.title) + ":** ";
        for (std::size_t i = 0; i < s.inputs.size(); ++i) {
          const auto& in = s.inputs[i];
          line += (i ? ", " : "") + md_escape(in.key) + " = " + md_escape(human_cell(in.value, "", nf)) + " (" + origin_name(in.origin) +
                  (in.from.empty() ? "" : " " + in.from) + ")";
        }
        block(line + "\n");
        break;
      }
      case SectionKind::notes:
        if (!s.notes.empty()) {
          std::string text = "**" + capitalised(s.title) + "**\n\n";
          for (const auto& n : s.notes) text += "- " + md_escape(n) + "\n";
          block(text);
        }
        break;
      case SectionKind::sources: {
        const std::string list = s.citations != nullptr ? sources_md(*s.citations) : sources_md(s.sources);
        if (!list.empty()) block("**" + capitalised(s.title) + "**\n\n" + list);
        break;
      }
      case SectionKind::values:
      case SectionKind::records:
        break;
    }
  }
  flush();
  return out;
}

}  // namespace infracalc::writers
