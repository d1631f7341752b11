#pragma once
// The what-if itself, pure: the live snapshot plus the added pods, decided by the controller's
// own code on one snapshot. Provisioning: build_scheduling_input and scheduling::provision with
// offerings from each host's free capacity (as the provisioner does before each batch). Each
// planned NodeClaim then goes the way its launch would: nodeclaim_from_plan, the node class's
// template and region, the cheapest compatible instance type, apply_node_class, and
// placement::place_vm over the region's hosts (host and, under NODE_POLICY=static, NUMA nodes and
// pinned CPUs), each placement seen by the next. Disruption: to_disruption_input and
// plan_disruption on the same snapshot.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cmd/karpenter-proxmox/plan/live_world.hpp"
#include "config/settings.hpp"
#include "core/instance_types/instance_type.hpp"
#include "core/topology/node_settings.hpp"

namespace kp::plan {

struct what_if_input {
  live_world world;
  std::vector<kube::pod> added;
  std::vector<instance_types::instance_type> instance_types;  // as the controller loads them
  config::settings settings;
  std::optional<topology::node_settings_file> node_settings;
  std::int64_t now_unix_ms = 0;
};

struct planned_node {
  std::string name;  // a placeholder: "<nodepool>-what-if-<n>"
  std::string nodepool;
  std::string node_class;
  std::string instance_type;                // what the launch would pick (cheapest compatible)
  std::vector<std::string> instance_types;  // the NodeClaim's options, cheapest first
  double price = 0;                         // of instance_type at host (else the cheapest option)
  std::string region;
  std::string host;               // "" when the launch would fail (placement_error says why)
  std::vector<int> numa_nodes;    // host NUMA nodes bound (NODE_POLICY=static), else empty
  std::string pinned_cpus;        // host CPUs pinned (NODE_POLICY=static), else ""
  std::string placement_error;    // why the launch would fail, "" when it would not
  std::vector<std::string> pods;  // "namespace/name"
};

struct pod_outcome {
  std::string pod;  // "namespace/name"
  bool added = false;
  std::string node;    // an existing node or in-flight NodeClaim that would take it, else ""
  std::string reason;  // why it stays pending, "" when it does not
};

struct removal {
  std::string method;  // emptiness, drift, multi-node, single-node, expiration
  std::string reason;  // empty, drifted, underutilized, expired
  std::vector<std::string> nodes;
  std::vector<std::string> nodeclaims;
  std::size_t replacements = 0;
  double savings = 0;
  std::string decision;
};

struct what_if_report {
  std::string cluster_name;
  std::vector<planned_node> nodeclaims;
  std::vector<pod_outcome> bound;    // pods that would land on existing capacity
  std::vector<pod_outcome> pending;  // pods that would stay pending, with the reason
  std::vector<removal> removals;
  std::vector<std::string> notes;  // regions not read, hosts left out, NodePools skipped
};

what_if_report run_what_if(const what_if_input& in);

}  // namespace kp::plan
