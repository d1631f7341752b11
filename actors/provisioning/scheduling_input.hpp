#pragma once
// The bridge from the controller's cluster snapshot to the scheduler's input
// (core/scheduling/provision.hpp): API objects translated to core/model, the pending pods
// judged provisionable, NodePools filtered to those that may create nodes now, DaemonSet pods
// from their templates, and the NodeClaims this controller has created but not yet seen come
// back through the informer. Pure (no actors, no I/O), so it is unit-tested on its own.
#include <map>
#include <string>
#include <vector>

#include "core/instance_types/instance_type.hpp"
#include "core/instance_types/right_sized.hpp"
#include "core/scheduling/provision.hpp"
#include "protocol/cluster_snapshot.hpp"

namespace kp::actors::provisioning {

inline constexpr const char* node_class_group = "karpenter.proxmox.sinextra.dev";
inline constexpr const char* node_class_kind = "ProxmoxNodeClass";

// Why a NodeClass cannot take new NodeClaims, or "" when it can. No conditions at all counts as
// ready (nothing has judged it yet); a Ready condition other than True, or conditions without
// Ready, does not.
std::string node_class_blocker(const protocol::cluster_snapshot& snap, const std::string& name);

struct scheduling_input {
  scheduling::snapshot snap;
  // Parallel to snap.pods: the snapshot's pod each pending pod was copied from.
  std::vector<const model::pod*> pending;
  // The API NodePool behind each entry of snap.nodepools, by name.
  std::map<std::string, const kube::node_pool*> pools;
  // NodePools left out and why, for a person ("NodePool \"a\": ProxmoxNodeClass \"b\" is not
  // ready (Ready=False: ...)").
  std::vector<std::string> skipped_pools;
  // Pods whose objects could not be translated, or whose requests cannot be represented, with
  // the error.
  std::vector<std::pair<const model::pod*, std::string>> invalid_pods;
};

// in_flight: NodeClaims created here and not in `snap` yet. nominations: pod UID -> NodeClaim
// name for pods a recent plan put on a NodeClaim that is not ready for them yet; those pods are
// counted on that claim rather than scheduled again. right_sized: the hosts' room for family f1
// (without hosts, the zones the node classes selected, as for the fixed types' offerings).
scheduling_input build_scheduling_input(const protocol::cluster_snapshot& snap,
                                        const std::vector<model::nodeclaim>& in_flight,
                                        const std::map<std::string, std::string>& nominations,
                                        const std::vector<instance_types::instance_type>& types,
                                        instance_types::right_sized_offer right_sized = {});

// The largest capacity among the instance types a NodeClaim's requirements allow (what it may
// still become), for counting an unlaunched claim against NodePool limits pessimistically.
// Right-sized (f1) names count with the size they name.
model::resource_list pessimistic_capacity(const model::nodeclaim& claim,
                                          const std::vector<instance_types::instance_type>& types,
                                          double memory_overhead_percent = 0);

}  // namespace kp::actors::provisioning
