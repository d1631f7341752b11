#include "actors/cluster_state/shared_pod_parts.hpp"

#include <algorithm>

#include "protocol/kube/interning_sweep.hpp"

namespace kp::actors::cluster_state {
namespace {

template <class T>
const std::vector<T>& value_of(const kube::shared_vector<T>& part) {
  return part.items();
}
template <class T>
const T& value_of(const kube::shared_optional<T>& part) {
  return *part;
}
template <class T>
bool absent(const kube::shared_vector<T>& part) {
  return part.empty();
}
template <class T>
bool absent(const kube::shared_optional<T>& part) {
  return !part.has_value();
}

}  // namespace

template <class Part>
bool part_pool<Part>::by_value::operator()(const Part& a, const Part& b) const {
  return value_of(a) < value_of(b);
}

template <class Part>
void part_pool<Part>::share(Part& part) {
  if (absent(part)) return;  // nothing to share: an absent part costs no allocation
  auto [at, added] = held_.insert(part);
  if (!added) {
    part = *at;
    return;
  }
  if (held_.size() < sweep_at_) return;
  std::erase_if(held_, [](const Part& p) { return p.sole_holder(); });
  sweep_at_ = kube::next_sweep_at(held_.size());
}

void shared_pod_parts::share(kube::pod& pod) {
  std::lock_guard lock(mutex_);
  owner_references_.share(pod.metadata.owner_references);
  auto& spec = pod.spec;
  affinities_.share(spec.affinity);
  tolerations_.share(spec.tolerations);
  spread_constraints_.share(spec.topology_spread_constraints);
  containers_.share(spec.init_containers);
  containers_.share(spec.containers);
  volumes_.share(spec.volumes);
  conditions_.share(pod.status.conditions);
}

std::size_t shared_pod_parts::held() const {
  std::lock_guard lock(mutex_);
  return owner_references_.size() + affinities_.size() + tolerations_.size() +
         spread_constraints_.size() + containers_.size() + volumes_.size() + conditions_.size();
}

}  // namespace kp::actors::cluster_state
