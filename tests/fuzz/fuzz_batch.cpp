// libFuzzer target: one batch record (JSON) through the reader, the plugin host and the JSON writer.
#include <cstddef>
#include <cstdint>
#include <string>

#include "plan/batch_record.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 65536) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string out;
  (void)infracalc::process_batch_record(text, 1, {}, out);
  return 0;
}
