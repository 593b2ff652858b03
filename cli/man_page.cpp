#include <fmt/format.h>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "plan/machine_units.hpp"
#include "host/context.hpp"
#include "host/input_aliases.hpp"
#include "plugins/registry.hpp"

namespace infracalc::cli {

namespace {

// Text for roff (groff_man(7)): backslashes escaped, a leading '.' or '\'' made literal, hyphens in options as
// \- (a minus, which copies and searches as one), and a break point (\:) after each '|' of a choice list.
std::string roff(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else if (c == '|') out += "|\\:";  // a place to break a long choice list (fp32|tf32|...)
    else out += c;
    line_start = c == '\n';
  }
  return out;
}

std::string bold(std::string_view text) { return "\\fB" + roff(text) + "\\fR"; }

}  // namespace

std::string man_page(std::string_view version, std::string_view date) {
  std::string out = fmt::format(".TH INFRACALC 1 \"{}\" \"infracalc {}\" \"User Commands\"\n", date, version);
  out += ".SH NAME\ninfracalc \\- calculator and planner for AI infrastructure\n";
  out += ".SH SYNOPSIS\n" + bold("infracalc") + " \\fIplugin\\fR \\fIcalculator\\fR [" + bold("--input") +
         " \\fIVALUE\\fR ...] [" + bold("--model") + " \\fIID\\fR] [" + bold("--gpu") + " \\fIID\\fR] [\\fIoutput options\\fR]\n.br\n" +
         bold("infracalc") + " \\fIcommand\\fR [\\fIargs\\fR]\n";
  out += ".SH DESCRIPTION\n"
         "Every number read or written carries a unit (GB is 10^9 bytes, GiB 2^30). Calculators answer one question each "
         "(does a model fit, how large is the KV cache, how fast does it decode, how many GPUs, switches and optics, how "
         "many kW and litres of coolant, what does a GPU-hour or a million tokens cost); each figure comes with its inputs, "
         "their sources and dates. The planner chains them into a worksheet for one scenario file.\n";
  out += ".SH COMMANDS\n";
  for (const auto& c : command_table()) {
    out += ".TP\n" + bold(c.name) + "\n" + roff(c.summary) + "\n";
    for (const auto& s : c.subcommands) out += ".br\n" + bold(std::string(c.name) + " " + std::string(s.name)) + "\n";
  }
  out += ".SH OUTPUT OPTIONS\n.nf\n" + roff(output_options_help()) + ".fi\n";
  // One section per plugin: its calculators, each with its inputs and outputs as --help lists them.
  for (const auto& e : plugin_table()) {
    const Plugin& p = e.get();
    out += ".SH PLUGIN " + roff(fmt::format("{}", p.name)) + "\n" + roff(e.summary) + ".\n";
    if (!p.doc.empty()) out += "Formulas and sources: " + roff(p.doc) + ".\n";
    for (const auto& c : p.calculators) {
      out += ".SS \"" + roff(fmt::format("{} {}", p.name, c.name)) + "\"\n" + roff(c.summary) + "\n";
      if (!c.description.empty()) out += ".PP\n" + roff(c.description) + "\n";
      for (const auto& r : c.refs) out += ".TP\n" + bold(Context::flag_name(r.name)) + " \\fIID\\fR\n" + roff(r.help) + "\n";
      for (const auto& in : c.inputs) {
        const std::string word = value_word(in);
        out += ".TP\n" + bold(Context::flag_name(in.name)) + (word.empty() ? "" : " \\fI" + word + "\\fR") + "\n" + roff(in.help) +
               " " + roff(details(in)) + "\n";
        for (auto a : input_aliases(c, in)) out += "Also " + bold(Context::flag_name(a)) + ".\n";
      }
      out += ".PP\nOutputs (JSON key, unit in JSON):\n.RS\n";
      for (const auto& o : c.outputs)
        out += ".TP\n" + bold(o.name) + " (" + roff(writers::machine_quantity(o.name, Quantity{1, o.dim, o.point}).unit) + ")\n" + roff(o.help) + "\n";
      out += ".RE\n";
    }
  }
  out += ".SH EXIT STATUS\n0 success; 1 the command ran but a check it was asked for failed (a failing verify, --require-fit); "
         "2 a usage, unit, input or data error (the message names the input, what was expected and a hint).\n";
  out += ".SH ENVIRONMENT\n.TP\n" + bold("INFRACALC_DATA") +
         "\nA directory of data files overlaid on the built-in catalog, as " + bold("--data-dir") + " does.\n.TP\n" +
         bold("NO_COLOR") + "\nNo colour in terminal output.\n";
  out += ".SH SEE ALSO\nThe plan file format: " + bold("infracalc plan --help") + ", " + bold("infracalc plan init serve") +
         ". Shell completions: " + bold("infracalc completions bash|zsh|fish") + ".\n";
  return out;
}

}  // namespace infracalc::cli
