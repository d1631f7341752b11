#include "config/secret_namespaces.hpp"

#include <algorithm>

#include "core/text/trim.hpp"

namespace kp::config {
namespace {

bool dns_label(std::string_view s) {
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (s.empty() || s.size() > 63 || !alnum(s.front()) || !alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return alnum(c) || c == '-'; });
}

}  // namespace

result<std::vector<std::string>> parse_namespace_list(std::string_view text) {
  std::vector<std::string> out;
  if (text::trim(text).empty()) return out;
  while (true) {
    const auto comma = text.find(',');
    const auto item = text::trim(text.substr(0, comma));
    if (!dns_label(item)) {
      return make_error("invalid_value",
                        "\"" + std::string(item) +
                            "\" is not a namespace name (lower-case letters, digits and '-', at "
                            "most 63)");
    }
    if (std::find(out.begin(), out.end(), item) == out.end()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

std::string format_namespace_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

std::vector<std::string> template_secret_namespaces(const settings& s,
                                                    const std::string& own_namespace) {
  if (!s.template_secret_namespaces.empty()) return s.template_secret_namespaces;
  std::vector<std::string> out{s.system_namespace};
  if (!own_namespace.empty() && own_namespace != s.system_namespace) out.push_back(own_namespace);
  return out;
}

}  // namespace kp::config
