#include "actors/cluster_state/kept_fields.hpp"

#include <algorithm>

namespace kp::actors::cluster_state {
namespace {

void keep_used_fields(std::vector<kube::container>& containers) {
  for (auto& c : containers) {
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
  auto& conditions = pod.status.conditions;
  std::erase_if(conditions, [](const kube::condition& c) { return c.type != "PodScheduled"; });
  // Readers look at its status and reason only.
  for (auto& c : conditions) {
    drop(c.message);
    drop(c.last_transition_time);
    drop(c.last_heartbeat_time);
  }
  conditions.shrink_to_fit();
  drop(pod.status.message);
  drop(pod.status.reason);
  drop(pod.status.pod_ip);
  drop(pod.status.host_ip);
  keep_used_fields(pod.spec.containers);
  keep_used_fields(pod.spec.init_containers);
  pod.spec.tolerations.shrink_to_fit();
  pod.spec.volumes.shrink_to_fit();
  pod.spec.topology_spread_constraints.shrink_to_fit();
  pod.metadata.owner_references.shrink_to_fit();
  pod.metadata.finalizers.shrink_to_fit();
}

}  // namespace kp::actors::cluster_state
