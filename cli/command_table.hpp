// The one table of built-in commands, their subcommands, options and operands, and of the output options every
// command takes: the main help, `list`, did-you-mean, the hoisting of output options and the shell completions
// all read it (ninja's table of subcommands is the model). Each command's parser in main.cpp registers the same
// options; a CLI test checks every option listed here against the parser.
#pragma once

#include <span>
#include <string_view>

namespace infracalc::cli {

/// What a word may be (an option's value or an operand): where its completions come from.
enum class ValueKind : unsigned char {
  /// A switch: takes no value.
  none,
  /// Free text or a number: nothing to offer.
  text,
  /// A file path.
  file,
  /// A directory path.
  directory,
  /// A plugin name.
  plugin,
  /// bash, zsh or fish.
  shell,
  /// table, json, csv, md.
  format,
  /// auto, always, never.
  color,
  /// inference or training (validate --kind).
  measurement_kind,
  /// An id of an accelerator, system, link, switch, memory or storage part.
  hardware_id,
  /// A model id.
  model_id,
  /// Any catalog id.
  entry_id,
  /// A kind of hardware entry (hw list --kind).
  hardware_kind,
  /// Any kind of catalog entry (data list --kind).
  entry_kind,
  /// A plan key as section.key= (plan --set, --sweep).
  plan_key,
};

/// An option of a command: "--name" and what its value is.
struct OptionSpec {
  /// With the dashes: "--vendor".
  std::string_view name;
  /// What the value is; none for a switch.
  ValueKind value = ValueKind::none;
};

/// A subcommand (`hw show`): its operands and options.
struct SubcommandSpec {
  /// "show".
  std::string_view name;
  /// What its operands are (hardware ids for `hw show`); none when it takes none.
  ValueKind operands = ValueKind::none;
  /// Its options.
  std::span<const OptionSpec> options{};
};

/// A built-in command.
struct CommandSpec {
  /// "hw".
  std::string_view name;
  /// One line for the main help.
  std::string_view summary;
  /// Its operands when it has no subcommands.
  ValueKind operands = ValueKind::none;
  /// Its options when it has no subcommands.
  std::span<const OptionSpec> options{};
  /// Its subcommands; the first is what the bare command runs.
  std::span<const SubcommandSpec> subcommands{};
  /// False for the commands whose output has one form (completions, help): they take no output options.
  bool output_options = true;
};

/// Every built-in command, in help order.
[[nodiscard]] std::span<const CommandSpec> command_table();
/// The command named `name`, or nullptr.
[[nodiscard]] const CommandSpec* find_command(std::string_view name);
/// The output options (accepted anywhere on the line, by every command and calculator).
[[nodiscard]] std::span<const OptionSpec> output_options();
/// The options of a calculator that declares a chart (Calculator::chart): --plot FILE.svg and --force.
[[nodiscard]] std::span<const OptionSpec> chart_options();

}  // namespace infracalc::cli
