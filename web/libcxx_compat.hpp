// What the WebAssembly build's standard library (libc++ 13, from Debian's emscripten 3.1.6) lacks of C++20 and the
// sources use, forced into every web translation unit (-include) and nowhere else. Each part stands aside when
// the library has the feature, so a newer emscripten uses its own.
#pragma once

#include <version>

#if !defined(__cpp_lib_bit_cast)
#include <type_traits>
namespace std {
/// std::bit_cast (libc++ 14): the bits of `from` as a `To` of the same size.
template <class To, class From>
  requires(sizeof(To) == sizeof(From) && is_trivially_copyable_v<To> && is_trivially_copyable_v<From>)
constexpr To bit_cast(const From& from) noexcept {
  return __builtin_bit_cast(To, from);
}
}  // namespace std
#endif
