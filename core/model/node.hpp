#pragma once
// A Kubernetes Node as the scheduler and disruption see it.
#include <cstdint>
#include <map>
#include <string>
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

}  // namespace kp::model
