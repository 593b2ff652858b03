// libxlsxwriter, opened with dlopen the first time a workbook is written instead of linked: linked, it
// and the libraries it pulls in (minizip, libcrypto, zlib) were mapped and relocated at every start of
// every command (docs/PERFORMANCE.md, "Start-up"). Only `plan --xlsx` needs it.
#pragma once

#include <xlsxwriter.h>

namespace infracalc::plan {

/// The libxlsxwriter functions the workbook writer calls, resolved from the shared library.
struct XlsxLibrary {
  decltype(&::workbook_new_opt) workbook_new_opt;
  decltype(&::workbook_close) workbook_close;
  decltype(&::workbook_add_worksheet) workbook_add_worksheet;
  decltype(&::workbook_add_format) workbook_add_format;
  decltype(&::worksheet_write_string) worksheet_write_string;
  decltype(&::worksheet_write_number) worksheet_write_number;
  decltype(&::worksheet_write_formula_str) worksheet_write_formula_str;
  decltype(&::worksheet_write_formula_num) worksheet_write_formula_num;
  decltype(&::worksheet_set_column) worksheet_set_column;
  decltype(&::format_set_bold) format_set_bold;
  decltype(&::format_set_text_wrap) format_set_text_wrap;
  decltype(&::format_set_font_size) format_set_font_size;
  decltype(&::format_set_font_color) format_set_font_color;
  decltype(&::format_set_bg_color) format_set_bg_color;
  decltype(&::lxw_strerror) lxw_strerror;
};

/// The library, opened and resolved once; nullptr when it cannot be opened or lacks a function.
[[nodiscard]] const XlsxLibrary* xlsx_library();

/// Why xlsx_library() returned nullptr (the loader's message), empty when it did not.
[[nodiscard]] const char* xlsx_library_error();

}  // namespace infracalc::plan
