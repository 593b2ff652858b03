// libxlsxwriter, opened with dlopen the first time a workbook is written instead of linked: linked, it
// and the libraries it pulls in (minizip, libcrypto, zlib) were mapped and relocated at every start of
// every command (docs/PERFORMANCE.md, "Start-up"). Only `plan --xlsx` needs it.
#pragma once

#include <xlsxwriter.h>

namespace infracalc::plan {

// Every libxlsxwriter function the workbook writer calls: one list feeds the table's members and the lookups.
#define INFRACALC_XLSX_FUNCTIONS(X) \
  X(workbook_new_opt) X(workbook_close) X(workbook_add_worksheet) X(workbook_add_format) X(workbook_add_chart) \
  X(worksheet_write_string) X(worksheet_write_number) X(worksheet_write_formula_str) X(worksheet_write_formula_num) \
  X(worksheet_set_column) X(worksheet_insert_chart_opt) X(worksheet_set_landscape) X(worksheet_fit_to_pages) \
  X(worksheet_repeat_rows) X(worksheet_set_header) X(worksheet_set_footer) X(worksheet_freeze_panes) X(worksheet_print_area) \
  X(worksheet_set_h_pagebreaks) \
  X(format_set_bold) X(format_set_italic) X(format_set_font_size) X(format_set_font_color) \
  X(format_set_bg_color) X(format_set_num_format) X(chart_add_series) X(chart_series_set_name) X(chart_series_set_line) \
  X(chart_series_set_marker_type) X(chart_series_set_marker_size) X(chart_title_set_name) \
  X(chart_axis_set_name) X(chart_axis_set_log_base) X(chart_axis_set_reverse) X(chart_axis_set_crossing_max) X(chart_legend_set_position) \
  X(lxw_strerror)

/// The libxlsxwriter functions the workbook writer calls, resolved from the shared library.
struct XlsxLibrary {
#define INFRACALC_XLSX_MEMBER(name) decltype(&::name) name;
  INFRACALC_XLSX_FUNCTIONS(INFRACALC_XLSX_MEMBER)
#undef INFRACALC_XLSX_MEMBER
};

/// The library, opened and resolved once; nullptr when it cannot be opened or lacks a function.
[[nodiscard]] const XlsxLibrary* xlsx_library();

/// Why xlsx_library() returned nullptr (the loader's message), empty when it did not.
[[nodiscard]] const char* xlsx_library_error();

}  // namespace infracalc::plan
