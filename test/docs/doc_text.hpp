#pragma once
// Reading the repository's own files from a test: KP_SOURCE_DIR is set by the test main.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace kp::test {

inline std::string source_dir() {
  const char* dir = std::getenv("KP_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

// The whole file at `relative` (to the source tree), or "" when it cannot be read.
inline std::string read_source_file(const std::string& relative) {
  std::ifstream in(source_dir() + "/" + relative, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace kp::test
