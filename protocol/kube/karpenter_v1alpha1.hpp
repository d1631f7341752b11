#pragma once
// karpenter.sh/v1alpha1 NodeOverlay, as chart/karpenter-proxmox/crds/ defines it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/kube/api_resource.hpp"
#include "protocol/kube/meta_types.hpp"

namespace kp::kube {

struct node_overlay_spec {
  std::vector<node_selector_requirement> requirements;
  std::optional<std::string> price_adjustment;
  std::optional<std::string> price;
  resource_list capacity;  // extended resources only
  std::optional<std::int64_t> weight;
  friend bool operator==(const node_overlay_spec&, const node_overlay_spec&) = default;
};

struct node_overlay_status {
  std::vector<condition> conditions;
  friend bool operator==(const node_overlay_status&, const node_overlay_status&) = default;
};

struct node_overlay {
  static constexpr api_resource resource{"karpenter.sh", "v1alpha1", "NodeOverlay", "nodeoverlays",
                                         false};
  object_meta metadata;
  node_overlay_spec spec;
  node_overlay_status status;
  friend bool operator==(const node_overlay&, const node_overlay&) = default;
};

}  // namespace kp::kube
