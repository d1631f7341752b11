#pragma once
// Node repair (karpenter-core.md 1.2, feature gate NodeRepair): a node whose health condition
// has matched one of the provider's repair policies for longer than the policy's toleration is
// deleted, unless too many of its pool's nodes are unhealthy at once (then the problem is more
// likely the cluster than the node, and deleting would make it worse).
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace kp::disruption {

// A condition type and status that makes a node unhealthy once it has lasted `toleration`.
struct repair_policy {
  std::string condition_type;
  std::string condition_status;
  std::chrono::seconds toleration{std::chrono::minutes(30)};
};

// The Proxmox provider's policies: Ready False or Unknown for the toleration (30 minutes in
// Karpenter's providers).
std::vector<repair_policy> default_repair_policies(
    std::chrono::seconds toleration = std::chrono::minutes(30));

struct node_condition_state {
  std::string type;
  std::string status;
  std::int64_t since_unix_ms = 0;  // lastTransitionTime
};

struct node_health {
  std::string node;
  std::string nodeclaim;
  std::string nodepool;
  bool deleting = false;  // already on its way out: counted, never repaired twice
  std::vector<node_condition_state> conditions;
};

struct repair {
  std::string node;
  std::string nodeclaim;
  std::string nodepool;
  std::string reason;  // "Ready=False for 31m0s (toleration 30m0s)"
};

struct repair_blocked {
  std::string node;
  std::string nodeclaim;
  std::string reason;
};

struct repair_plan {
  std::vector<repair> repairs;
  std::vector<repair_blocked> blocked;
};

// More than this share of a pool's nodes (rounded up) unhealthy blocks repair in that pool.
inline constexpr int max_unhealthy_percent = 20;

repair_plan plan_repairs(const std::vector<node_health>& nodes,
                         const std::vector<repair_policy>& policies, std::chrono::sys_seconds now);

}  // namespace kp::disruption
