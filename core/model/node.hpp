#pragma once
// A Kubernetes Node as the scheduler and disruption see it.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/model/label_selector.hpp"
#include "core/model/resource_list.hpp"
#include "core/model/taint.hpp"

namespace kp::model {

struct node {
  std::string name;
  std::string uid;
  std::string provider_id;  // proxmox://<region>/<vmid>
  label_map labels;
  label_map annotations;
  std::vector<taint> taints;
  resource_list capacity;
  resource_list allocatable;
  bool unschedulable = false;  // cordoned
  bool ready = false;
  bool terminating = false;
  std::int64_t creation_unix_ms = 0;
  // CSI attach limits per driver, from CSINode.spec.drivers[].allocatable.count.
  std::map<std::string, std::int32_t> volume_limits;
  friend bool operator==(const node&, const node&) = default;
};

// A node that snapshots and simulations share instead of copying: a disruption pass reads
// 5,000 of them, and each of its simulations sees every one but the candidates.
using shared_node = std::shared_ptr<const node>;
inline shared_node share(node n) {
  return std::make_shared<const node>(std::move(n));
}

}  // namespace kp::model
