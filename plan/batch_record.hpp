// One `infracalc batch` record: a JSON object naming a calculator (or a plan) in, its JSON result line out.
// The command line's batch stream and the WebAssembly engine (web/engine.cpp) both run records through here,
// so a record gives the same line wherever it runs.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "documents/node.hpp"
#include "host/context.hpp"
#include "units/expected.hpp"

namespace infracalc {

/// Runs a plan record: the plan file (already confined to --files-from) and its `--set` overrides in, the JSON
/// of `plan --json` out. The command line passes its planner; an engine without one passes an empty runner.
using PlanRecordRunner =
    std::function<std::string(const std::string& file, const std::vector<std::string>& sets, const RunOptions& ro)>;

/// Runs one batch record (a JSON object as text) and appends its JSON line (result or error) to `out`;
/// returns the error when the record failed. `record` is its 1-based line number. An input that names a file
/// (Input::names_file) must name one under `files_from` (batch --files-from DIR); with none, such a record fails.
/// A record's result line carries "record": N as its error line does; `fields` (--fields) trims it (keep_fields).
/// A plan record ({"plan": FILE, "set": {...}}) runs through `plan`; with no runner it fails with a UserError.
std::optional<Error> process_batch_record(std::string_view text, std::size_t record, const RunOptions& ro, std::string& out,
                                          std::string_view files_from = {}, const std::vector<std::string>& fields = {},
                                          const PlanRecordRunner& plan = {});

/// The "set" object of a plan record ({"workload.rate": "50/s", "hardware.gpus": 16}) as `--set` texts
/// ("workload.rate=50/s"), in its order; a value that is not a string, number or boolean is a UserError.
[[nodiscard]] std::vector<std::string> record_sets(const Node& set);

/// Appends the error line of record `record` to `out`: schema_version, record (none when `record` is 0: the
/// engine's plan runs), the record's string id if it has one (`id` may be null), error and hint, and a newline.
void append_batch_error(std::string& out, std::size_t record, const Node* id, const Error& e);

}  // namespace infracalc
