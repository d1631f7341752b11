#pragma once
// The scheduling model of every pod, translated once per pod object. Snapshots share the pod
// objects that did not change (cluster_state copies maps, never objects), so a disruption pass
// translates only the pods that changed since the previous pass and shares the models of the
// rest (nothing large is copied). Pure: no CAF, no I/O; one actor owns it.
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "core/model/pod.hpp"
#include "core/result.hpp"
#include "protocol/kube/core_v1.hpp"

namespace kp::actors::disruption {

class model_pods {
 public:
  // kube::to_model of `object`, from the previous translation when this very object was
  // translated before. The reference is valid until the next call to sweep(); the model it
  // holds lives as long as someone shares it.
  const result<model::shared_pod>& of(const std::shared_ptr<const kube::pod>& object);
  // Forgets every object not asked for since the previous sweep (deleted or replaced pods).
  void sweep();
  std::size_t size() const { return entries_.size(); }

 private:
  struct entry {
    std::shared_ptr<const kube::pod> object;  // keeps the address unique while it is cached
    result<model::shared_pod> model;
    std::uint64_t seen = 0;
  };
  std::unordered_map<const kube::pod*, entry> entries_;
  std::uint64_t round_ = 1;
};

}  // namespace kp::actors::disruption
