#include "actors/disruption/model_pods.hpp"

#include <iterator>

#include "protocol/kube/model_translation.hpp"

namespace kp::actors::disruption {

namespace {

result<model::shared_pod> shared_model(const kube::pod& object) {
  auto m = kube::to_model(object);
  if (!m) return m.error();
  return model::share(std::move(*m));
}

}  // namespace

const result<model::shared_pod>& model_pods::of(const std::shared_ptr<const kube::pod>& object) {
  auto it = entries_.find(object.get());
  if (it == entries_.end())
    it = entries_.emplace(object.get(), entry{object, shared_model(*object), 0}).first;
  it->second.seen = round_;
  return it->second.model;
}

void model_pods::sweep() {
  std::erase_if(entries_, [this](const auto& e) { return e.second.seen != round_; });
  ++round_;
}

}  // namespace kp::actors::disruption
