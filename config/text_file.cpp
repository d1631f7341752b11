#include "config/text_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace kp::config {

result<std::string> read_text_file(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("unreadable", std::strerror(errno));
  std::string content;
  char chunk[64 * 1024];
  while (in) {
    in.read(chunk, sizeof chunk);
    content.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (content.size() > max_bytes) {
      return make_error("too_large", "larger than " + std::to_string(max_bytes) + " bytes");
    }
  }
  if (in.bad()) return make_error("unreadable", std::strerror(errno));
  return content;
}

}  // namespace kp::config
