#pragma once
// What NodeClaims made alike carry equal, made one shared value across their models: the
// NodeClaims of one NodePool, instance type and zone have equal labels, annotations and
// requirements, so the 4,000 models a disruption pass keeps hold each distinct one once. Not
// thread-safe: one per translating actor.
#include <cstddef>

#include "core/model/node_selector.hpp"
#include "core/model/shared_vector.hpp"
#include "protocol/kube/affinity_interning.hpp"
#include "protocol/kube/pod_part_models.hpp"

namespace kp::kube {

struct nodeclaim_part_models {
  using requirement_list = model::shared_vector<model::node_selector_requirement>;

  label_interning labels;  // labels and annotations alike
  interning_table<requirement_list> requirements{&hash, &unused};

 private:
  static std::size_t hash(const requirement_list& list) {
    affinity_hash::hasher to;
    for (const auto& r : list) {
      affinity_hash::add(to, r);
      to.add(static_cast<std::size_t>(r.min_values.value_or(-1)));
    }
    return to.h;
  }
  static bool unused(const requirement_list& list) { return list.sole_holder(); }
};

}  // namespace kp::kube
