#pragma once
// karpenter.sh/v1 NodePool and the NodeClaim template it stamps out.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/label_selector.hpp"
#include "core/model/node_selector.hpp"
#include "core/model/resource_list.hpp"
#include "core/model/taint.hpp"

namespace kp::model {

struct node_class_ref {
  std::string group;  // karpenter.proxmox.sinextra.dev
  std::string kind;   // ProxmoxNodeClass
  std::string name;
  friend bool operator==(const node_class_ref&, const node_class_ref&) = default;
};

struct disruption_budget {
  std::string nodes = "10%";
  std::string schedule;              // cron, empty = always
  std::string duration;              // with schedule
  std::vector<std::string> reasons;  // Underutilized, Empty, Drifted; empty = all
  friend bool operator==(const disruption_budget&, const disruption_budget&) = default;
};

struct nodepool_disruption {
  std::string consolidation_policy = "WhenEmptyOrUnderutilized";
  std::string consolidate_after = "0s";  // duration or "Never"
  std::vector<disruption_budget> budgets{disruption_budget{}};
  friend bool operator==(const nodepool_disruption&, const nodepool_disruption&) = default;
};

struct nodeclaim_template {
  label_map labels;
  label_map annotations;
  std::vector<node_selector_requirement> requirements;
  std::vector<taint> taints;
  std::vector<taint> startup_taints;
  node_class_ref node_class;
  std::string expire_after = "720h";     // or "Never"
  std::string termination_grace_period;  // empty = wait forever
  friend bool operator==(const nodeclaim_template&, const nodeclaim_template&) = default;
};

struct nodepool {
  std::string name;
  std::string uid;
  std::int32_t weight = 0;
  nodeclaim_template template_;
  nodepool_disruption disruption;
  resource_list limits;                  // cpu, memory, nodes, extended; empty = unlimited
  std::optional<std::int64_t> replicas;  // static pools (alpha)
  bool ready = true;
  bool deleting = false;
  // The node class's kubelet maxPods: caps the pods of every node of this pool below what its
  // instance type would allow (the provider fills it in; Kubernetes has no such NodePool field).
  std::optional<std::int64_t> kubelet_max_pods;
  // Extended resources every node of this pool gets from its node class's PCI devices
  // (nvidia.com/gpu: 1), on top of its instance type's capacity (the provider fills it in).
  resource_list device_capacity;
  friend bool operator==(const nodepool&, const nodepool&) = default;
};

}  // namespace kp::model
