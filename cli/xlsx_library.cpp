#ifdef INFRACALC_HAVE_XLSX
#include "cli/xlsx_library.hpp"

#include <dlfcn.h>

#include <string>

namespace infracalc::plan {

namespace {

std::string g_error;

template <class F>
bool resolve(void* lib, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(lib, name));
  if (out == nullptr) g_error = std::string("libxlsxwriter has no ") + name;
  return out != nullptr;
}

XlsxLibrary* open_library() {
  // The path CMake found at build time first, then the runtime package's soname (Debian: libxlsxwriter4).
  void* lib = dlopen(INFRACALC_XLSXWRITER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) lib = dlopen("libxlsxwriter.so.4", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* e = dlerror();
    g_error = e != nullptr ? e : "libxlsxwriter could not be opened";
    return nullptr;
  }
  static XlsxLibrary x{};
  const bool ok = resolve(lib, "workbook_new_opt", x.workbook_new_opt) && resolve(lib, "workbook_close", x.workbook_close) &&
                  resolve(lib, "workbook_add_worksheet", x.workbook_add_worksheet) &&
                  resolve(lib, "workbook_add_format", x.workbook_add_format) &&
                  resolve(lib, "worksheet_write_string", x.worksheet_write_string) &&
                  resolve(lib, "worksheet_write_number", x.worksheet_write_number) &&
                  resolve(lib, "worksheet_write_formula_str", x.worksheet_write_formula_str) &&
                  resolve(lib, "worksheet_write_formula_num", x.worksheet_write_formula_num) &&
                  resolve(lib, "worksheet_set_column", x.worksheet_set_column) &&
                  resolve(lib, "format_set_bold", x.format_set_bold) &&
                  resolve(lib, "format_set_text_wrap", x.format_set_text_wrap) &&
                  resolve(lib, "format_set_font_size", x.format_set_font_size) &&
                  resolve(lib, "format_set_font_color", x.format_set_font_color) &&
                  resolve(lib, "format_set_bg_color", x.format_set_bg_color) && resolve(lib, "lxw_strerror", x.lxw_strerror);
  return ok ? &x : nullptr;
}

}  // namespace

const XlsxLibrary* xlsx_library() {
  static const XlsxLibrary* const lib = open_library();
  return lib;
}

const char* xlsx_library_error() { return g_error.c_str(); }

}  // namespace infracalc::plan

#endif  // INFRACALC_HAVE_XLSX
