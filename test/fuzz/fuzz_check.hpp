#pragma once
// What every fuzz target shares: the input as text, and a check that stops the process (a
// crash for libFuzzer and for the replay driver alike) when a property the code promises fails.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace kp::fuzz {

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

[[noreturn]] inline void broken(const char* what, std::string_view detail = {}) {
  std::fprintf(stderr, "fuzz: property broken: %s ", what);
  std::fwrite(detail.data(), 1, detail.size(), stderr);
  std::fputc('\n', stderr);
  std::abort();
}

inline void check(bool ok, const char* what, std::string_view detail = {}) {
  if (!ok) broken(what, detail);
}

}  // namespace kp::fuzz
