#pragma once
// The cluster snapshot (API objects) translated into what core/disruption plans on: the
// scheduling snapshot (nodes, bound and pending pods, NodeClaims, NodePools, instance types,
// DaemonSet pods), the PDBs, the hashes and image NodeClaims should carry, lastPodEventTime,
// and the node health that node repair judges. Pure: no CAF, no I/O.
#include <cstdint>
#include <string>
#include <vector>

#include "actors/model_memo.hpp"
#include "core/disruption/cluster.hpp"
#include "core/disruption/repair.hpp"
#include "core/instance_types/instance_type.hpp"
#include "core/instance_types/right_sized.hpp"
#include "protocol/cluster_snapshot.hpp"
#include "protocol/kube/nodeclaim_part_models.hpp"

namespace kp::actors::disruption {

struct disruption_input {
  kp::disruption::cluster cluster;
  // Managed nodes (a NodeClaim names them) with their conditions, for node repair.
  std::vector<kp::disruption::node_health> health;
  // Objects that could not be translated ("Pod default/x: ..."); they are left out.
  std::vector<std::string> skipped;
};

// What the disruption actor keeps from one pass to the next: the models of the Nodes and
// NodeClaims it translated (model_memo.hpp). At rest no pass translates any. The NodeClaims'
// models share the labels, annotations and requirements that claims made alike carry equal.
struct translation_memo {
  model_memo<kube::node, model::node> nodes;
  model_memo<kube::node_claim, model::nodeclaim> nodeclaims;
  kube::nodeclaim_part_models nodeclaim_parts;
};

// `types` are the controller's instance types. When none carries offerings yet, one offering
// per zone seen (the zones of managed nodes and the node classes' selected zones) is made with
// unbounded room: disruption only needs prices and zones, placement decides at launch.
// `right_sized` is family f1 as the regions last reported their hosts' room; without hosts it
// is offered nowhere (an f1 replacement must fit a real host), though f1 nodes keep their price.
// Bound pods are the snapshot's shared models (cluster_snapshot::pods), never copies; pods
// whose objects could not be translated are skipped, with the reason. Nodes and NodeClaims are
// `memo`'s models: translated only when their objects changed since the memo's last pass.
disruption_input to_disruption_input(const protocol::cluster_snapshot& snap,
                                     const std::vector<instance_types::instance_type>& types,
                                     std::int64_t now_unix_ms,
                                     instance_types::right_sized_offer right_sized,
                                     translation_memo& memo);
// As above, translating every Node and NodeClaim afresh (tools and tests).
disruption_input to_disruption_input(const protocol::cluster_snapshot& snap,
                                     const std::vector<instance_types::instance_type>& types,
                                     std::int64_t now_unix_ms,
                                     instance_types::right_sized_offer right_sized = {});

}  // namespace kp::actors::disruption
