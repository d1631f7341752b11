#pragma once
// Status writes the API server refused (422 Invalid, 400 Bad Request, 403 Forbidden). The same
// body would be refused again, so a writer logs a refusal once per object and generation, counts
// it in karpenter_proxmox_status_write_refusals_total{kind}, and does not send that body again
// while the object keeps its generation. A conflict or a timeout stays an ordinary retry.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "observability/karpenter_metrics.hpp"
#include "observability/logging.hpp"
#include "protocol/kube/meta_types.hpp"

namespace kp::actors {

class status_refusals {
 public:
  static bool is_refusal(const kp::error& e);

  // True when `body` (what would be written, see conditions_digest) for `name` at `generation`
  // was refused already.
  bool refused(const std::string& name, std::int64_t generation, const std::string& body) const;

  // Remembers a refusal; true when it is the first one for this name and generation.
  bool record(const std::string& name, std::int64_t generation, const std::string& body);

  void forget(const std::string& name);

  // Records the refusal `e` of a write of `body` to the `kind` object `name`, counts it in
  // `metrics` (may be null) and logs it when it is the first for this name and generation.
  void report(const kp::error& e, const std::string& kind, const std::string& name,
              std::int64_t generation, const std::string& body, obs::karpenter_metrics* metrics,
              const obs::logger& log);

 private:
  struct entry {
    std::int64_t generation = 0;
    std::set<std::string> bodies;
  };
  std::map<std::string, entry> by_name_;
};

// What a conditions write says, without the times: type, status, reason and message of each.
std::string conditions_digest(const std::vector<kube::condition>& conditions);

}  // namespace kp::actors
