#pragma once
// Small builders for scheduling scenarios: Proxmox built-in types in three zones, one NodePool.
#include <algorithm>
#include <string>

#include "core/model/labels.hpp"
#include "core/scheduling/provision.hpp"

namespace kp::scheduling::test {

using model::quantity;
using model::quantity_format;
using op = model::selector_operator;

inline model::quantity mib(std::int64_t m) {
  return quantity{m * 1024 * 1024 * 1000, quantity_format::binary_si};
}

inline model::pod make_pod(const std::string& name, std::int64_t cpu_milli, std::int64_t mem_mib) {
  static std::int64_t clock = 0;
  model::pod p;
  p.name = name;
  p.namespace_ = "default";
  p.uid = "uid-" + name;
  p.creation_unix_ms = ++clock;
  p.unschedulable = true;
  model::container c;
  c.name = "main";
  c.requests.set("cpu", quantity::from_milli(cpu_milli));
  c.requests.set("memory", mib(mem_mib));
  p.containers.push_back(c);
  return p;
}

inline model::nodepool make_pool(const std::string& name, std::int32_t weight = 0) {
  model::nodepool np;
  np.name = name;
  np.weight = weight;
  np.template_.node_class = {"karpenter.proxmox.sinextra.dev", "ProxmoxNodeClass", "default"};
  return np;
}

inline std::vector<instance_types::instance_type> proxmox_types(std::vector<std::string> zones = {
                                                                    "z1", "z2", "z3"}) {
  auto types = instance_types::builtin_instance_types();
  std::vector<instance_types::zone_capacity> caps;
  for (const auto& z : zones) caps.push_back({"region1", z, 64, 512LL << 30, true});
  instance_types::build_offerings(types, caps);
  return types;
}

inline snapshot base_snapshot() {
  snapshot s;
  s.instance_types = proxmox_types();
  s.nodepools.push_back(make_pool("default"));
  return s;
}

// The value of a requirement key in a planned NodeClaim, or empty.
inline std::vector<std::string> req_values(const planned_nodeclaim& nc, std::string_view key) {
  for (const auto& r : nc.requirements)
    if (r.key == key) return r.values;
  return {};
}

inline model::node make_node(const std::string& name, const std::string& zone, std::int64_t cpu,
                             std::int64_t mem_gib) {
  model::node n;
  n.name = name;
  n.labels = {{std::string(model::labels::zone), zone},
              {std::string(model::labels::hostname), name},
              {std::string(model::labels::instance_type), "custom"},
              {std::string(model::labels::arch), "amd64"},
              {std::string(model::labels::os), "linux"}};
  n.allocatable.set("cpu", quantity::from_units(cpu));
  n.allocatable.set("memory", mib(mem_gib * 1024));
  n.allocatable.set("pods", quantity::from_units(110));
  n.capacity = n.allocatable;
  n.ready = true;
  return n;
}

inline const pod_error* error_for(const plan& p, std::size_t pod) {
  for (const auto& e : p.errors)
    if (e.pod == pod) return &e;
  return nullptr;
}

// A topology spread of skew 1 over `key` among the pods labelled app=`app`, with Kubernetes'
// defaults (DoNotSchedule, nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore); a test sets the
// fields it is about.
inline model::topology_spread_constraint app_spread(std::string_view key, const std::string& app) {
  model::topology_spread_constraint c;
  c.topology_key = std::string(key);
  c.selector = model::label_selector{{{"app", app}}, {}};
  return c;
}

}  // namespace kp::scheduling::test

namespace kp::scheduling::test {

// The built-in types plus one GPU type, offered in z1.
inline std::vector<instance_types::instance_type> instance_types_with_gpu() {
  auto types = instance_types::builtin_instance_types();
  instance_types::instance_type gpu = types[8];  // c1.4VCPU-8GB's shape
  gpu.name = "g1.4VCPU-16GB";
  gpu.family = "g1";
  gpu.capacity.set("nvidia.com/gpu", model::quantity::from_units(1));
  types.push_back(gpu);
  instance_types::build_offerings(types, {{"region1", "z1", 64, 512LL << 30, true}});
  return types;
}

}  // namespace kp::scheduling::test
