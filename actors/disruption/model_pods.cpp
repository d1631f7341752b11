#include "actors/disruption/model_pods.hpp"

#include <iterator>

#include "protocol/kube/model_translation.hpp"

namespace kp::actors::disruption {

const result<model::pod>& model_pods::of(const std::shared_ptr<const kube::pod>& object) {
  auto it = entries_.find(object.get());
  if (it == entries_.end())
    it = entries_.emplace(object.get(), entry{object, kube::to_model(*object), 0}).first;
  it->second.seen = round_;
  return it->second.model;
}

void model_pods::sweep() {
  std::erase_if(entries_, [this](const auto& e) { return e.second.seen != round_; });
  ++round_;
}

}  // namespace kp::actors::disruption
