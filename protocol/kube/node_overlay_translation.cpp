#include "protocol/kube/node_overlay_translation.hpp"

#include "protocol/kube/model_translation.hpp"

namespace kp::kube {

overlays::overlay to_overlay(const node_overlay& object) {
  overlays::overlay out;
  out.name = object.metadata.name;
  const auto& spec = object.spec;
  out.price = spec.price.value_or("");
  out.price_adjustment = spec.price_adjustment.value_or("");
  if (auto reqs = to_model(spec.requirements, "spec.requirements")) {
    out.requirements = std::move(*reqs);
  } else {
    out.unreadable = reqs.error().message;
  }
  if (auto capacity = model::parse_resource_list(spec.capacity)) {
    out.capacity = std::move(*capacity);
  } else if (out.unreadable.empty()) {
    out.unreadable = "spec.capacity: " + capacity.error().message;
  }
  if (spec.weight) {
    if (*spec.weight >= 1 && *spec.weight <= 10000) {
      out.weight = static_cast<std::int32_t>(*spec.weight);
    } else if (out.unreadable.empty()) {
      out.unreadable = "spec.weight: " + std::to_string(*spec.weight) + " is outside 1..10000";
    }
  }
  return out;
}

}  // namespace kp::kube
