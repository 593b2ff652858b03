#ifdef INFRACALC_HAVE_XLSX
#include "plan/xlsx_library.hpp"

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
  bool ok = true;
#define INFRACALC_XLSX_RESOLVE(name) ok = ok && resolve(lib, #name, x.name);
  INFRACALC_XLSX_FUNCTIONS(INFRACALC_XLSX_RESOLVE)
#undef INFRACALC_XLSX_RESOLVE
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
