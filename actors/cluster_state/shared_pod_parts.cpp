#include "actors/cluster_state/shared_pod_parts.hpp"

#include <algorithm>

namespace kp::actors::cluster_state {
namespace {

const kube::owner_reference* controller_of(const kube::pod& pod) {
  for (const auto& o : pod.metadata.owner_references)
    if (o.controller.value_or(false) && !o.uid.empty()) return &o;
  return nullptr;
}

// `part` joins `seen` when they are equal; otherwise it becomes the one later pods meet.
template <class Part>
void share_part(Part& part, Part& seen) {
  if (part == seen) {
    part = seen;
  } else {
    seen = part;
  }
}

}  // namespace

bool shared_pod_parts::parts::unused() const {
  return owner_references.sole_holder() && affinity.sole_holder() && tolerations.sole_holder() &&
         topology_spread_constraints.sole_holder() && init_containers.sole_holder() &&
         containers.sole_holder() && volumes.sole_holder() && conditions.sole_holder();
}

void shared_pod_parts::share(kube::pod& pod) {
  const auto* owner = controller_of(pod);
  if (!owner) return;
  std::lock_guard lock(mutex_);
  auto& seen = by_controller_uid_[owner->uid];
  share_part(pod.metadata.owner_references, seen.owner_references);
  auto& spec = pod.spec;
  share_part(spec.affinity, seen.affinity);
  share_part(spec.tolerations, seen.tolerations);
  share_part(spec.topology_spread_constraints, seen.topology_spread_constraints);
  share_part(spec.init_containers, seen.init_containers);
  share_part(spec.containers, seen.containers);
  share_part(spec.volumes, seen.volumes);
  share_part(pod.status.conditions, seen.conditions);
  if (by_controller_uid_.size() >= forget_at_) forget_unused();
}

std::size_t shared_pod_parts::controllers() const {
  std::lock_guard lock(mutex_);
  return by_controller_uid_.size();
}

void shared_pod_parts::forget_unused() {
  std::erase_if(by_controller_uid_, [](const auto& entry) { return entry.second.unused(); });
  // Amortised: the next sweep waits until the table has doubled.
  forget_at_ = std::max<std::size_t>(1024, 2 * by_controller_uid_.size());
}

}  // namespace kp::actors::cluster_state
