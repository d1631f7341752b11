#include "protocol/transport/http_message.hpp"

#include <cctype>

namespace kp::transport {

namespace {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

}  // namespace

std::string_view find_header(const header_list& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (iequals(key, name)) return value;
  }
  return {};
}

std::string_view http_request::path() const {
  std::string_view t = target;
  return t.substr(0, t.find('?'));
}

std::string_view http_request::query() const {
  std::string_view t = target;
  auto q = t.find('?');
  return q == std::string_view::npos ? std::string_view{} : t.substr(q + 1);
}

}  // namespace kp::transport
