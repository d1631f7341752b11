#include "actors/cluster_state/kept_fields.hpp"

#include <algorithm>
#include <memory>

#include "actors/cluster_state/shared_pod_parts.hpp"

namespace kp::actors::cluster_state {
namespace {

void keep_used_fields(kube::shared_vector<kube::container>& containers) {
  if (containers.empty()) return;
  for (auto& c : containers.edit()) {
    c.image.clear();
    c.image.shrink_to_fit();
    // Only host ports reach the scheduling model.
    std::erase_if(c.ports, [](const kube::port_spec& p) { return p.host_port == 0; });
    c.ports.shrink_to_fit();
  }
  containers.shrink_to_fit();
}

void drop(std::string& text) {
  text.clear();
  text.shrink_to_fit();
}

}  // namespace

void keep_used_fields(kube::pod& pod) {
  if (!pod.status.conditions.empty()) {
    auto& conditions = pod.status.conditions.edit();
    std::erase_if(conditions, [](const kube::condition& c) { return c.type != "PodScheduled"; });
    // Readers look at its status and reason only.
    for (auto& c : conditions) {
      drop(c.message);
      drop(c.last_transition_time);
      drop(c.last_heartbeat_time);
    }
    if (conditions.empty()) {
      pod.status.conditions.clear();  // no allocation for no conditions
    } else {
      conditions.shrink_to_fit();
    }
  }
  keep_used_fields(pod.spec.containers);
  keep_used_fields(pod.spec.init_containers);
  pod.spec.tolerations.shrink_to_fit();
  pod.spec.volumes.shrink_to_fit();
  pod.spec.topology_spread_constraints.shrink_to_fit();
  pod.metadata.owner_references.shrink_to_fit();
  pod.metadata.finalizers.shrink_to_fit();
}

void keep_used_fields(kube::node& node) {
  auto& status = node.status;
  status.addresses = {};
  status.node_info = {};
  status.volumes_in_use = {};
  status.volumes_attached = {};
  for (auto& c : status.conditions) drop(c.last_heartbeat_time);
  status.conditions.shrink_to_fit();
  node.spec.taints.shrink_to_fit();
  node.metadata.owner_references.shrink_to_fit();
  node.metadata.finalizers.shrink_to_fit();
}

template <>
std::function<void(kube::pod&)> object_keeper<kube::pod>() {
  auto parts = std::make_shared<shared_pod_parts>();
  return [parts](kube::pod& pod) {
    keep_used_fields(pod);
    parts->share(pod);
  };
}

}  // namespace kp::actors::cluster_state
