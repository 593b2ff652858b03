#include <algorithm>
#include <fmt/format.h>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "plan/plan_schema.hpp"
#include "catalog/catalog.hpp"
#include "host/context.hpp"
#include "host/input_aliases.hpp"
#include "plugins/registry.hpp"

namespace infracalc::cli {

namespace {

// The reply's first line when the shell should complete paths itself.
constexpr std::string_view kFiles = ":files";
constexpr std::string_view kDirectories = ":dirs";

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

struct Reply {
  std::string_view prefix;
  std::vector<std::string> words;
  std::string_view paths;  // kFiles or kDirectories, or empty

  void add(std::string_view w) {
    if (starts_with(w, prefix)) words.emplace_back(w);
  }
  void add_ids(const std::vector<std::string_view>& kinds) {
    for (const auto& item : Catalog::instance().index())
      // Overlay files have no kind until parsed: offered for every kind.
      if (kinds.empty() || item.kind.empty() || std::find(kinds.begin(), kinds.end(), item.kind) != kinds.end()) add(item.id);
  }
};

void add_values(Reply& r, ValueKind kind) {
  switch (kind) {
    case ValueKind::none:
    case ValueKind::text: return;
    case ValueKind::file: r.paths = kFiles; return;
    case ValueKind::directory: r.paths = kDirectories; return;
    case ValueKind::plugin:
      for (const auto& p : plugin_table()) r.add(p.name);
      return;
    case ValueKind::shell:
      for (auto s : {"bash", "zsh", "fish"}) r.add(s);
      return;
    case ValueKind::format:
      for (auto s : {"table", "json", "csv", "md"}) r.add(s);
      return;
    case ValueKind::color:
      for (auto s : {"auto", "always", "never"}) r.add(s);
      return;
    case ValueKind::measurement_kind:
      for (auto s : {"inference", "training"}) r.add(s);
      return;
    case ValueKind::hardware_id: r.add_ids(hardware_kinds()); return;
    case ValueKind::model_id: r.add_ids({"model"}); return;
    case ValueKind::entry_id: r.add_ids({}); return;
    case ValueKind::hardware_kind:
      for (auto k : hardware_kinds()) r.add(k);
      return;
    case ValueKind::entry_kind: {
      std::vector<std::string> kinds;
      for (const auto& item : Catalog::instance().index())
        if (!item.kind.empty() && std::find(kinds.begin(), kinds.end(), item.kind) == kinds.end()) kinds.push_back(item.kind);
      std::sort(kinds.begin(), kinds.end());
      for (const auto& k : kinds) r.add(k);
      return;
    }
    case ValueKind::plan_key:
      for (auto path : plan::key_paths()) r.add(std::string(path) + "=");
      return;
  }
}

const OptionSpec* find_option(std::span<const OptionSpec> options, std::string_view name) {
  for (const auto& o : options)
    if (o.name == name) return &o;
  return nullptr;
}

// A calculator's words: after one of its flags, the flag's values; otherwise its flags.
void complete_calculator(Reply& r, const Calculator& c, std::string_view previous) {
  for (const auto& ref : c.refs)
    if (previous == Context::flag_name(ref.name)) {
      r.add_ids(ref.kinds);
      return;
    }
  for (const auto& in : c.inputs) {
    bool named = previous == Context::flag_name(in.name);
    for (auto a : input_aliases(c, in)) named = named || previous == Context::flag_name(a);
    if (!named) continue;
    for (auto choice : in.choices) r.add(choice);
    return;
  }
  const std::span<const OptionSpec> chart = c.chart != Chart::none ? chart_options() : std::span<const OptionSpec>{};
  for (const std::span<const OptionSpec> options : {output_options(), chart})
    if (const OptionSpec* o = find_option(options, previous); o != nullptr && o->value != ValueKind::none) {
      add_values(r, o->value);
      return;
    }
  for (const auto& o : chart) r.add(o.name);
  for (const auto& ref : c.refs) r.add(Context::flag_name(ref.name));
  for (const auto& in : c.inputs) {
    r.add(Context::flag_name(in.name));
    for (auto a : input_aliases(c, in)) r.add(Context::flag_name(a));
  }
  for (const auto& o : output_options()) r.add(o.name);
  r.add("--help");
}

void complete_command(Reply& r, const CommandSpec& cmd, const std::vector<std::string>& words) {
  std::span<const OptionSpec> options = cmd.options;
  ValueKind operands = cmd.operands;
  std::size_t first_operand = 1;
  if (!cmd.subcommands.empty()) {
    if (words.size() == 2) {
      for (const auto& s : cmd.subcommands) r.add(s.name);
      return;
    }
    const auto sub = std::find_if(cmd.subcommands.begin(), cmd.subcommands.end(), [&](const auto& s) { return s.name == words[1]; });
    if (sub == cmd.subcommands.end()) return;
    options = sub->options;
    operands = sub->operands;
    first_operand = 2;
  }
  const std::string& previous = words[words.size() - 2];
  if (words.size() - 1 > first_operand || (words.size() - 1 == first_operand && starts_with(previous, "--"))) {
    const OptionSpec* o = find_option(options, previous);
    if (o == nullptr) o = find_option(output_options(), previous);
    if (o != nullptr && o->value != ValueKind::none) {
      add_values(r, o->value);
      return;
    }
  }
  if (starts_with(r.prefix, "-")) {
    for (const auto& o : options) r.add(o.name);
    if (cmd.output_options)
      for (const auto& o : output_options())
        if (o.name != "--fields" || cmd.name == "batch") r.add(o.name);
    r.add("--help");
    return;
  }
  add_values(r, operands);
}

}  // namespace

std::string completion_text(const std::vector<std::string>& typed) {
  std::vector<std::string> words = typed;
  if (words.empty()) words.emplace_back();
  Reply r{words.back(), {}, {}};
  // Output options may stand before the command: they are skipped when finding it.
  std::vector<std::string> rest;
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    const OptionSpec* o = rest.empty() ? find_option(output_options(), words[i]) : nullptr;
    if (o == nullptr) {
      rest.push_back(words[i]);
      continue;
    }
    if (o->value != ValueKind::none && i + 2 < words.size()) ++i;
    else if (o->value != ValueKind::none) {
      add_values(r, o->value);  // the word being typed is this option's value
      rest.clear();
      words.clear();
      break;
    }
  }
  if (!words.empty()) {
    rest.push_back(words.back());
    if (rest.size() == 1) {
      for (const auto& c : command_table()) r.add(c.name);
      for (const auto& p : plugin_table()) r.add(p.name);
      if (starts_with(r.prefix, "-")) {
        for (const auto& o : output_options())
          if (o.name != "--fields") r.add(o.name);
        for (auto s : {"--help", "--version"}) r.add(s);
      }
    } else if (const CommandSpec* cmd = find_command(rest.front())) {
      complete_command(r, *cmd, rest);
    } else if (const Plugin* p = find_plugin(rest.front())) {
      if (rest.size() == 2) {
        for (const auto& c : p->calculators) r.add(c.name);
      } else if (const Calculator* c = p->find(rest[1])) {
        complete_calculator(r, *c, rest[rest.size() - 2]);
      }
    }
  }
  std::string out;
  if (!r.paths.empty()) out = std::string(r.paths) + "\n";
  std::sort(r.words.begin(), r.words.end());
  r.words.erase(std::unique(r.words.begin(), r.words.end()), r.words.end());
  for (const auto& w : r.words) out += w + "\n";
  return out;
}

namespace {

std::string bash() {
  return R"(# bash completion for infracalc (generated by `infracalc completions bash`). Candidates come from
# `infracalc __complete WORD...`: commands, plugins, calculators and flags from its command table, catalog ids
# after --model, --gpu and the other catalog flags, choices after choice flags; ":files" or ":dirs" asks for paths.
_infracalc() {
  local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n'
  local -a out
  out=($("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
  case "${out[0]}" in
    :files) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
    :dirs) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")) ;;
    *) COMPREPLY=("${out[@]}")
       # A plan key ends in '=' and its value follows without a space.
       if [ ${#COMPREPLY[@]} -eq 1 ] && [ "${COMPREPLY[0]: -1}" = "=" ]; then compopt -o nospace 2>/dev/null; fi ;;
  esac
}
complete -F _infracalc infracalc
)";
}

std::string zsh() {
  return R"(#compdef infracalc
# zsh completion for infracalc (generated by `infracalc completions zsh`): candidates from `infracalc __complete`.
_infracalc() {
  local -a out
  out=("${(@f)$("${words[1]}" __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
  case "${out[1]}" in
    :files) _files ;;
    :dirs) _files -/ ;;
    *) compadd -Q -- "${(@)out:#}" ;;
  esac
}
if [[ "${funcstack[1]}" == "_infracalc" ]]; then
  _infracalc "$@"
else
  compdef _infracalc infracalc
fi
)";
}

std::string fish() {
  return R"(# fish completion for infracalc (generated by `infracalc completions fish`): candidates from `infracalc __complete`.
function __infracalc_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l program $tokens[1]
    set -e tokens[1]
    set -l out ($program __complete $tokens "$cur" 2>/dev/null)
    switch "$out[1]"
        case ':files'
            __fish_complete_path "$cur"
        case ':dirs'
            __fish_complete_directories "$cur"
        case '*'
            printf '%s\n' $out
    end
end
complete -c infracalc -f -a '(__infracalc_complete)'
)";
}

}  // namespace

ExitStatus run_completions(const std::string& shell) {
  if (shell == "bash") emit(bash());
  else if (shell == "zsh") emit(zsh());
  else if (shell == "fish") emit(fish());
  else throw UserError{{"completions: expected bash, zsh or fish, got \"" + shell + "\"", "e.g. infracalc completions bash"}};
  return ExitStatus::ok;
}

}  // namespace infracalc::cli
