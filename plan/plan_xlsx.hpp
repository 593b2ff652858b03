// The plan as an Excel workbook (libxlsxwriter): an Inputs sheet, one sheet per step, a summary, the
// sources; lines computed from other lines are live formulas over the cells they read.
#pragma once

#include <string>
#include <vector>

#include "plan/plan_output.hpp"
#include "plan/plan_sweep.hpp"
#include "documents/atomic_file.hpp"

namespace infracalc::plan {

/// Sweep rows to add to the workbook as a sheet of values.
struct SweepTable {
  /// The sweep.
  const SweepPlan* sweep = nullptr;
  /// Its rows.
  const std::vector<SweepRow>* rows = nullptr;
};

/// True when this build can write workbooks.
[[nodiscard]] bool xlsx_available();
/// Writes the workbook into `file`'s temporary; the caller commits it (with the other outputs of the run, an
/// OutputSet). Throws UserError when libxlsxwriter was not found at build time or the write fails.
void write_xlsx(const Worksheet& w, const SweepTable* sweep, AtomicFile& file);
/// Writes the workbook through an AtomicFile (refuses to replace a file without `force`, never an input).
/// Throws UserError when libxlsxwriter was not found at build time.
void write_xlsx(const Worksheet& w, const SweepTable* sweep, const std::string& path, bool force, const std::vector<std::string>& inputs);

}  // namespace infracalc::plan
