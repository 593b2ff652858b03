// Linked into the executables of the sanitizer tier only (CMakeLists.txt, INFRACALC_SANITIZE): LeakSanitizer's
// roots without the sanitizer runtimes' own memory.
//
// At every exit LeakSanitizer scans the writable segments of every loaded module for pointers into the heap.
// Those of libasan and libubsan are 12 MB of .bss that nothing else touches, so the scan faults in about 3,000
// zero pages per process: 30-45 ms of each of the few thousand processes the tests start (docs/PERFORMANCE.md).
// The runtimes keep their own metadata outside the user heap, so no user allocation is reachable only through
// them. Here the global scan is turned off (`use_globals=0`) and the same segments of every other module are
// registered as root regions instead, just before the leak check runs. Leaving a region out can only add leak
// reports, never hide one: a wrong exclusion fails the tier loudly.
#include <link.h>
#include <sanitizer/lsan_interface.h>

#include <cstdlib>
#include <cstring>

namespace {

bool is_sanitizer_runtime(const char* path) {
  return std::strstr(path, "libasan") != nullptr || std::strstr(path, "libubsan") != nullptr ||
         std::strstr(path, "liblsan") != nullptr;
}

int register_module(dl_phdr_info* info, std::size_t, void*) {
  if (is_sanitizer_runtime(info->dlpi_name)) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    if (p.p_type == PT_LOAD && (p.p_flags & PF_W) != 0 && p.p_memsz > 0)
      __lsan_register_root_region(reinterpret_cast<void*>(info->dlpi_addr + p.p_vaddr), p.p_memsz);
  }
  return 0;
}

// Runs before the runtime's own exit-time leak check: that handler was registered during the runtime's
// initialisation, before this constructor, and exit() runs handlers in reverse order. Registering at exit,
// not at start, also covers the libraries opened later with dlopen (libxlsxwriter).
void register_roots_at_exit() { dl_iterate_phdr(register_module, nullptr); }

[[gnu::constructor]] void install() { std::atexit(register_roots_at_exit); }

}  // namespace

/// LeakSanitizer's defaults for this executable; LSAN_OPTIONS still overrides them.
extern "C" const char* __lsan_default_options() { return "use_globals=0"; }
