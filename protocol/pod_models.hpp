#pragma once
// Every pod's scheduling model (kube::to_model), translated once when its object enters
// cluster_state and shared by every snapshot that holds that object and by every reader
// (disruption, provisioning, the kproximate gauges): none keeps a per-pod cache or translates
// all pods itself. Filed under the same keys as cluster_snapshot::pods.
#include <memory>
#include <string>
#include <utility>

#include "core/model/pod.hpp"
#include "core/result.hpp"
#include "protocol/chunked_map.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/model_translation.hpp"

namespace kp::protocol {

struct pod_model {
  std::shared_ptr<const kube::pod> object;  // the object translated
  result<model::shared_pod> model = kp::error{};
};
using pod_model_map = chunked_map<std::string, pod_model>;

// `parts` (optional) shares the model's template parts with the other pods translated through it.
inline result<model::shared_pod> shared_model_of(const kube::pod& object,
                                                 kube::pod_part_models* parts = nullptr) {
  auto m = kube::to_model(object, parts);
  if (!m) return m.error();
  return model::share(std::move(*m));
}

inline pod_model translated(std::shared_ptr<const kube::pod> object,
                            kube::pod_part_models* parts = nullptr) {
  auto model = shared_model_of(*object, parts);
  return {std::move(object), std::move(model)};
}

// Walks a snapshot's models beside its pods (same keys, same order): the model of each pod in
// turn, the snapshot's when it holds this very object's, translated afresh otherwise (snapshots
// built without models: tests, tools). Keys must be asked in increasing order.
class pod_model_cursor {
 public:
  explicit pod_model_cursor(const pod_model_map* models) : models_(models) {
    if (models_ != nullptr) at_ = models_->begin();
  }
  const result<model::shared_pod>& of(const std::string& key,
                                      const std::shared_ptr<const kube::pod>& object) {
    if (models_ != nullptr) {
      while (at_ != models_->end() && at_->first < key) ++at_;
      if (at_ != models_->end() && at_->first == key && at_->second.object == object)
        return at_->second.model;
    }
    fresh_ = shared_model_of(*object);
    return fresh_;
  }

 private:
  const pod_model_map* models_;
  pod_model_map::const_iterator at_;
  result<model::shared_pod> fresh_ = kp::error{};
};

}  // namespace kp::protocol
