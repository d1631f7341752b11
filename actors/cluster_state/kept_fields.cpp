#include "actors/cluster_state/kept_fields.hpp"

#include <algorithm>

namespace kp::actors::cluster_state {

void keep_used_fields(kube::pod& pod) {
  auto& conditions = pod.status.conditions;
  std::erase_if(conditions, [](const kube::condition& c) { return c.type != "PodScheduled"; });
  conditions.shrink_to_fit();
  pod.spec.containers.shrink_to_fit();
  pod.spec.init_containers.shrink_to_fit();
  pod.spec.tolerations.shrink_to_fit();
  pod.spec.volumes.shrink_to_fit();
  pod.spec.topology_spread_constraints.shrink_to_fit();
  pod.metadata.owner_references.shrink_to_fit();
  pod.metadata.finalizers.shrink_to_fit();
}

}  // namespace kp::actors::cluster_state
