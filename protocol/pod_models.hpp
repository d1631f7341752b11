#pragma once
// The pods of a snapshot, each held once: as its scheduling model (kube::to_model), translated
// when its object enters cluster_state and shared by every snapshot that holds that object and by
// every reader (provisioning, disruption, termination, the gauges). The decoded API object is not
// kept: the model carries everything a reader reads of a pod (names and uid for Events and
// evictions, ownership, state, the drain's priority class and grace period), and the entry the
// resourceVersion a relist compares. Filed under "namespace/name".
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "core/model/pod.hpp"
#include "core/result.hpp"
#include "protocol/chunked_map.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/model_translation.hpp"

namespace kp::protocol {

struct pod_model {
  // The object's metadata.resourceVersion: a relist that repeats it (with the model's uid)
  // keeps the model instead of translating the object again.
  std::string resource_version;
  // Never null. When the object could not be translated in full (`invalid`), it still names
  // the pod and carries its ownership, labels and state, but lacks requirements: readers that
  // schedule or simulate skip it, readers that name, drain or count pods do not.
  model::shared_pod pod;
  std::shared_ptr<const kp::error> invalid;

  bool valid() const { return invalid == nullptr; }
};
using pod_model_map = chunked_map<std::string, pod_model>;
using shared_pod_models = std::shared_ptr<const pod_model_map>;

// `parts` (optional) shares the model's template parts with the other pods translated through it.
inline pod_model translated(const kube::pod& object, kube::pod_part_models* parts = nullptr) {
  std::optional<kp::error> invalid;
  auto model = kube::to_model(object, parts, invalid);
  pod_model out{object.metadata.resource_version, model::share(std::move(model)), nullptr};
  if (invalid) out.invalid = std::make_shared<const kp::error>(std::move(*invalid));
  return out;
}

// The pods of a snapshot built from API objects (tests, tools), by "namespace/name".
template <class Pods>
shared_pod_models pod_models_of(const Pods& pods) {
  auto out = std::make_shared<pod_model_map>();
  kube::pod_part_models parts;
  for (const auto& [key, object] : pods) out->insert_or_assign(key, translated(*object, &parts));
  return out;
}

}  // namespace kp::protocol
