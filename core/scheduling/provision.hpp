#pragma once
// The provisioning simulation (karpenter-core.md 3.3-3.8): a pure function from a snapshot of
// the cluster to a plan of new NodeClaims, bindings onto existing or in-flight nodes, and a
// reason for every pod that cannot be placed.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/instance_types/instance_type.hpp"
#include "core/instance_types/right_sized.hpp"
#include "core/model/node.hpp"
#include "core/model/nodeclaim.hpp"
#include "core/model/nodepool.hpp"
#include "core/model/pod.hpp"

namespace kp::scheduling {

enum class preference_policy : std::uint8_t { respect, ignore };
enum class min_values_policy : std::uint8_t { strict, best_effort };

struct options {
  preference_policy preferences = preference_policy::respect;
  min_values_policy min_values = min_values_policy::strict;
  std::size_t max_instance_types = 600;  // per NodeClaim, cheapest first
};

struct snapshot {
  std::vector<model::pod> pods;           // pending pods to place (already judged provisionable)
  std::vector<model::shared_node> nodes;  // registered nodes
  // Pods running on nodes or nominated to NodeClaims (node_name = node or NodeClaim name),
  // shared: a simulation's snapshot holds the same pods as the cluster it simulates.
  std::vector<model::shared_pod> bound_pods;
  // With a node (matched by node_name) or in flight. Nodes and NodeClaims are shared, as the
  // bound pods are: a simulation's snapshot holds the same ones as the cluster it simulates.
  std::vector<model::shared_nodeclaim> nodeclaims;
  std::vector<model::nodepool> nodepools;
  std::vector<instance_types::instance_type> instance_types;  // for every NodePool
  // Right-sized VMs (family f1), for the NodePools that opt in (a requirement
  // `karpenter.proxmox.sinextra.dev/instance-family In [..., f1, ...]`): the hosts' free room
  // and the memory overhead percent. No zones: the family is offered nowhere.
  instance_types::right_sized_offer right_sized;
  std::vector<model::pod> daemonsets;  // one pod per DaemonSet, from its template
};

struct planned_nodeclaim {
  std::string nodepool;
  std::string hostname;  // the simulation's placeholder; not a real name
  model::label_map labels;
  // Everything except the instance-type key, which is `In` the options below
  // (nodeclaim_requirements() gives the full list).
  std::vector<model::node_selector_requirement> requirements;
  // Compatible options as indices into snapshot::instance_types, cheapest first (at most
  // options::max_instance_types). 16-bit indices rather than names keep a large plan small
  // (a snapshot holds at most 65,535 instance types).
  std::vector<std::uint16_t> instance_types;
  std::optional<int> instance_type_min_values;
  // The right-sized option, when the NodePool opts into family f1 and a host has the room: the
  // smallest f1 type holding `requests`, with one offering per host. `right_sized_rank` is its
  // place among all options in price order (instance_type_options() merges them).
  std::optional<instance_types::instance_type> right_sized;
  std::size_t right_sized_rank = 0;
  double price = 0;               // of the cheapest option
  model::resource_list requests;  // pods + DaemonSet overhead
  std::vector<std::size_t> pods;  // indices into snapshot.pods
  std::vector<model::taint> taints;
  std::vector<model::taint> startup_taints;
  model::node_class_ref node_class;
  bool min_values_relaxed = false;
};

struct binding {
  std::size_t pod = 0;  // index into snapshot.pods
  std::string node;     // a node name, or an in-flight NodeClaim's name
  bool in_flight = false;
};

struct pod_error {
  std::size_t pod = 0;
  std::string reason;  // for a person: what blocked it and what would help
};

struct plan {
  std::vector<planned_nodeclaim> nodeclaims;
  std::vector<binding> bindings;
  std::vector<pod_error> errors;
};

plan provision(const snapshot& snap, const options& opts = {});

// A planned NodeClaim given up after the simulation (host fit, reservations): each of its pods
// gets `reason` in the plan's errors. The caller leaves the NodeClaim out of the plan.
void refuse_pods_of(plan& p, const planned_nodeclaim& nc, const std::string& reason);

// A planned NodeClaim's instance types, cheapest first: the listed ones and the right-sized one.
std::vector<const instance_types::instance_type*> instance_type_options(const planned_nodeclaim& nc,
                                                                        const snapshot& snap);
// Their names, cheapest first.
std::vector<std::string> instance_type_names(const planned_nodeclaim& nc, const snapshot& snap);
// Its requirements including `node.kubernetes.io/instance-type In [...]`, as the NodeClaim
// spec carries them.
std::vector<model::node_selector_requirement> nodeclaim_requirements(const planned_nodeclaim& nc,
                                                                     const snapshot& snap);

}  // namespace kp::scheduling
