#include "core/scheduling/provision.hpp"

#include <algorithm>

#include "core/model/labels.hpp"
#include "core/scheduling/solver.hpp"

namespace kp::scheduling {

plan provision(const snapshot& snap, const options& opts) {
  return detail::solver(snap, opts).run();
}

void refuse_pods_of(plan& p, const planned_nodeclaim& nc, const std::string& reason) {
  for (std::size_t pod : nc.pods) p.errors.push_back({pod, reason});
}

std::vector<const instance_types::instance_type*> instance_type_options(const planned_nodeclaim& nc,
                                                                        const snapshot& snap) {
  std::vector<const instance_types::instance_type*> out;
  out.reserve(nc.instance_types.size() + 1);
  const std::size_t rank = std::min(nc.right_sized_rank, nc.instance_types.size());
  for (std::size_t k = 0; k <= nc.instance_types.size(); ++k) {
    if (nc.right_sized && k == rank) out.push_back(&*nc.right_sized);
    if (k < nc.instance_types.size()) out.push_back(&snap.instance_types[nc.instance_types[k]]);
  }
  return out;
}

std::vector<std::string> instance_type_names(const planned_nodeclaim& nc, const snapshot& snap) {
  std::vector<std::string> out;
  for (const auto* t : instance_type_options(nc, snap)) out.push_back(t->name);
  return out;
}

std::vector<model::node_selector_requirement> nodeclaim_requirements(const planned_nodeclaim& nc,
                                                                     const snapshot& snap) {
  auto out = nc.requirements;
  out.push_back({std::string(model::labels::instance_type), model::selector_operator::in,
                 instance_type_names(nc, snap), nc.instance_type_min_values});
  return out;
}

}  // namespace kp::scheduling
