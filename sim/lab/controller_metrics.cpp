#include "sim/lab/controller_metrics.hpp"

#include <sstream>

#include "core/parse_number.hpp"
#include "sim/lab/http_endpoint.hpp"

namespace kp::lab {

std::map<std::string, double> sum_metric_families(const std::string& exposition) {
  std::map<std::string, double> out;
  std::istringstream in(exposition);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto name_end = line.find_first_of("{ ");
    if (name_end == std::string::npos) continue;
    // The value follows the labels' closing brace (label values may hold spaces).
    auto value_start = line[name_end] == '{' ? line.find("} ", name_end) : name_end;
    if (value_start == std::string::npos) continue;
    value_start = line.find_first_not_of("} ", value_start);
    if (value_start == std::string::npos) continue;
    // The value ends at the optional timestamp. NaN, infinities and malformed samples are not
    // figures the summary needs.
    auto value_end = line.find(' ', value_start);
    auto value = std::string_view(line).substr(
        value_start, value_end == std::string::npos ? std::string::npos : value_end - value_start);
    if (auto v = parse_decimal(value)) out[line.substr(0, name_end)] += *v;
  }
  return out;
}

result<std::map<std::string, double>> read_controller_metrics(int port) {
  if (port <= 0) return make_error("not_found", "the controller's metrics port is unknown");
  http_endpoint endpoint("http://127.0.0.1:" + std::to_string(port), "", "");
  auto r = endpoint.call("GET", "/metrics", "", "", std::chrono::seconds(5));
  if (!r) return r.error();
  if (!r->ok()) return make_error("metrics", "GET /metrics: HTTP " + std::to_string(r->status));
  return sum_metric_families(r->body);
}

}  // namespace kp::lab
