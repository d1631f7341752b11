#pragma once
// Requests counted by method and templated path (/nodes/{node}/qemu/{vmid}/config), with the
// statuses answered, for GET /sim/v1/stats.
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include <boost/json/object.hpp>

namespace kp::sim::pve {

class request_stats {
 public:
  void count_request(const std::string& method, const std::string& path) {
    ++requests_[{method, path}];
  }
  void count_status(const std::string& method, const std::string& path, int status) {
    ++statuses_[{method, path}][status];
  }
  void clear() {
    requests_.clear();
    statuses_.clear();
  }
  // {"total": N, "requests": [{"method", "path", "count", "statuses": {"200": n}}]}
  boost::json::object to_json() const;

 private:
  using key = std::pair<std::string, std::string>;
  std::map<key, std::uint64_t> requests_;
  std::map<key, std::map<int, std::uint64_t>> statuses_;
};

}  // namespace kp::sim::pve
