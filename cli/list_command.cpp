#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "plan/document.hpp"
#include "plugins/registry.hpp"

namespace infracalc::cli {

ExitStatus run_list(const GlobalOptions& g) {
  using writers::Field;
  using writers::Member;
  using writers::Section;
  // For programs: each plugin, its calculators and how many reference kernels check it. For people: a section per
  // plugin, a row per calculator, then the built-in commands.
  std::vector<Member> plugins;
  std::vector<std::pair<std::string, std::vector<Field>>> sections;
  for (const auto& e : plugin_table()) {
    const Plugin& p = e.get();
    std::vector<Member> calculators;
    std::vector<Field> rows;
    for (const auto& c : p.calculators) {
      calculators.push_back({"", std::vector<Member>{{"name", std::string(c.name)}, {"summary", std::string(c.summary)}}});
      rows.push_back({.key = std::string(c.name), .shown = std::string(c.summary)});
    }
    plugins.push_back({"", std::vector<Member>{{"name", std::string(p.name)},
                                               {"summary", std::string(e.summary)},
                                               {.key = "calculators", .value = std::move(calculators), .list = true},
                                               {"kernels", static_cast<std::int64_t>(p.kernels.size())}}});
    sections.emplace_back(std::string(p.name) + "  " + std::string(e.summary), std::move(rows));
  }
  std::vector<Field> builtins;
  for (const auto& c : command_table()) builtins.push_back({.key = std::string(c.name), .shown = std::string(c.summary)});

  writers::Document doc{.title = "plugins"};
  doc.head = {{"schema_version", std::int64_t{1}}, {.key = "plugins", .value = std::move(plugins), .list = true}};
  for (const auto& [title, rows] : sections) {
    Section s{.kind = writers::SectionKind::fields, .key = "calculators", .title = title, .json = false, .head = {"calculator", "summary"}};
    s.fields = rows;
    doc.sections.push_back(std::move(s));
  }
  Section commands{.kind = writers::SectionKind::fields, .key = "commands", .title = "built-in commands", .json = false, .head = {"command", "summary"}};
  commands.fields = builtins;
  doc.sections.push_back(std::move(commands));
  emit(writers::render(doc, g.out));
  return ExitStatus::ok;
}

}  // namespace infracalc::cli
