#pragma once
// Rescheduling simulation for disruption (karpenter-core.md 5.5): the pods of a batch of
// candidate nodes are put through core/scheduling's provision() against every other node, and
// the outcome is judged as Karpenter's consolidation does.
#include <string>
#include <vector>

#include "core/disruption/candidates.hpp"
#include "core/scheduling/provision.hpp"

namespace kp::disruption {

struct simulation {
  bool ok = false;      // every pod of the batch found a place
  std::string failure;  // for a person, when !ok
  // New NodeClaims holding pods of the batch (those opened only for pending pods are not the
  // batch's business and are dropped).
  std::vector<scheduling::planned_nodeclaim> new_nodeclaims;
};

// `batch` indexes cs.all. Pending pods take part (so that consolidation never eats the room
// they need), pods of nodes already being deleted too, but only the batch's pods must fit;
// a batch pod landing on an uninitialized node or in-flight NodeClaim counts as a failure.
simulation simulate(const cluster& c, const candidate_set& cs,
                    const std::vector<std::size_t>& batch, const scheduling::options& opts);

// The highest price of the instance type's available offerings that `nc` can launch into
// (zone and capacity-type requirements): what the replacement may cost at worst.
double worst_launch_price(const instance_types::instance_type& type,
                          const scheduling::planned_nodeclaim& nc);

}  // namespace kp::disruption
