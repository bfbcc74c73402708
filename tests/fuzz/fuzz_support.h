// What every fuzz target shares: the input as a string_view, and a check that traps (so
// libFuzzer records the input) when an invariant of the code under test does not hold.
#ifndef TORCHDEX_TESTS_FUZZ_FUZZ_SUPPORT_H_
#define TORCHDEX_TESTS_FUZZ_FUZZ_SUPPORT_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#define TORCHDEX_FUZZ_CHECK(condition)                                      \
  do {                                                                      \
    if (!(condition)) {                                                     \
      std::fprintf(stderr, "invariant failed: %s (%s:%d)\n", #condition,    \
                   __FILE__, __LINE__);                                     \
      __builtin_trap();                                                     \
    }                                                                       \
  } while (0)

inline std::string_view FuzzInput(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

#endif  // TORCHDEX_TESTS_FUZZ_FUZZ_SUPPORT_H_
