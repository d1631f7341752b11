#include "sim/kube/quantity.hpp"

#include <cmath>
#include <cstdlib>

namespace kp::sim::kube {
namespace json = boost::json;

std::optional<double> parse_quantity(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  std::size_t i = 0;
  if (text[i] == '+' || text[i] == '-') ++i;
  std::size_t digits = 0;
  while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) {
    ++i;
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  std::string number(text.substr(0, i));
  char* end = nullptr;
  double v = std::strtod(number.c_str(), &end);
  if (!end || *end != '\0') return std::nullopt;
  std::string_view suffix = text.substr(i);
  static const std::map<std::string_view, double> kSuffix = {{"", 1},
                                                             {"m", 1e-3},
                                                             {"n", 1e-9},
                                                             {"u", 1e-6},
                                                             {"k", 1e3},
                                                             {"M", 1e6},
                                                             {"G", 1e9},
                                                             {"T", 1e12},
                                                             {"P", 1e15},
                                                             {"E", 1e18},
                                                             {"Ki", 1024.0},
                                                             {"Mi", 1048576.0},
                                                             {"Gi", 1073741824.0},
                                                             {"Ti", 1099511627776.0},
                                                             {"Pi", 1125899906842624.0},
                                                             {"Ei", 1152921504606846976.0}};
  if (auto it = kSuffix.find(suffix); it != kSuffix.end()) return v * it->second;
  if (suffix[0] == 'e' || suffix[0] == 'E') {
    std::string exp(suffix.substr(1));
    if (exp.empty()) return std::nullopt;
    char* e2 = nullptr;
    long x = std::strtol(exp.c_str(), &e2, 10);
    if (!e2 || *e2 != '\0') return std::nullopt;
    return v * std::pow(10.0, static_cast<double>(x));
  }
  return std::nullopt;
}

std::optional<double> quantity_value(const json::value& v) {
  if (v.is_string())
    return parse_quantity(std::string_view(v.get_string().data(), v.get_string().size()));
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  if (v.is_double()) return v.get_double();
  return std::nullopt;
}

resource_amounts parse_resource_list(const json::object* list) {
  resource_amounts out;
  if (!list) return out;
  for (const auto& kv : *list) {
    if (auto q = quantity_value(kv.value())) out[std::string(kv.key())] = *q;
  }
  return out;
}

}  // namespace kp::sim::kube
