#include "core/scheduling/provision.hpp"

#include "core/model/labels.hpp"
#include "core/scheduling/solver.hpp"

namespace kp::scheduling {

plan provision(const snapshot& snap, const options& opts) {
  return detail::solver(snap, opts).run();
}

std::vector<std::string> instance_type_names(const planned_nodeclaim& nc, const snapshot& snap) {
  std::vector<std::string> out;
  out.reserve(nc.instance_types.size());
  for (std::uint16_t i : nc.instance_types) out.push_back(snap.instance_types[i].name);
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
