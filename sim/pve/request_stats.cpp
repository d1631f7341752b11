#include "sim/pve/request_stats.hpp"

#include <boost/json.hpp>

namespace kp::sim::pve {

boost::json::object request_stats::to_json() const {
  namespace json = boost::json;
  json::array rows;
  std::uint64_t total = 0;
  for (const auto& [k, count] : requests_) {
    json::object statuses;
    if (auto it = statuses_.find(k); it != statuses_.end())
      for (const auto& [code, n] : it->second) statuses[std::to_string(code)] = n;
    rows.push_back(json::object{
        {"method", k.first}, {"path", k.second}, {"count", count}, {"statuses", statuses}});
    total += count;
  }
  return json::object{{"total", total}, {"requests", rows}};
}

}  // namespace kp::sim::pve
