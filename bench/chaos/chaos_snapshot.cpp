#include "bench/chaos/chaos_snapshot.hpp"

#include <boost/json.hpp>

#include "sim/lab/json_fields.hpp"
#include "sim/lab/world_observation.hpp"

namespace kp::bench {

using lab::has_at;
using lab::node_ready;
using lab::string_at;

result<chaos_snapshot> take_snapshot(lab::lab_world& world, int foreign_vmid) {
  chaos_snapshot s;
  auto pods = world.list("/api/v1/pods");
  if (!pods) return pods.error();
  for (const auto& p : *pods) {
    if (!p.is_object()) continue;
    if (has_at(p.as_object(), {"metadata", "deletionTimestamp"})) {
      ++s.pods_terminating;
      continue;
    }
    ++s.pods_live;
    if (string_at(p.as_object(), {"status", "phase"}) == "Running") ++s.pods_running;
  }
  auto claims = world.list("/apis/karpenter.sh/v1/nodeclaims");
  if (!claims) return claims.error();
  for (const auto& c : *claims) {
    if (!c.is_object()) continue;
    const auto& o = c.as_object();
    s.nodeclaims[std::string(string_at(o, {"metadata", "name"}))] = {
        std::string(string_at(o, {"status", "nodeName"})),
        has_at(o, {"metadata", "deletionTimestamp"})};
  }
  auto nodes = world.list("/api/v1/nodes");
  if (!nodes) return nodes.error();
  for (const auto& n : *nodes)
    if (n.is_object())
      s.nodes[std::string(string_at(n.as_object(), {"metadata", "name"}))] =
          node_ready(n.as_object());
  auto vms = world.vms(true);
  if (!vms) return vms.error();
  for (const auto& vm : *vms)
    if (vm.vmid != foreign_vmid) s.vms.push_back(vm);
  return s;
}

bool chaos_snapshot::converged(long wanted) const {
  if (pods_running != wanted || pods_live != wanted) return false;
  if (vms.size() != nodeclaims.size() || nodes.size() != nodeclaims.size()) return false;
  if (leaked_vms() != 0 || duplicate_vms() != 0 || stuck_nodeclaims() != 0) return false;
  for (const auto& [name, claim] : nodeclaims)
    if (claim.terminating) return false;
  return true;
}

long chaos_snapshot::leaked_vms() const {
  long n = 0;
  for (const auto& vm : vms)
    if (nodeclaims.count(vm.name) == 0) ++n;
  return n;
}

long chaos_snapshot::duplicate_vms() const {
  std::map<std::string, long> per_name;
  for (const auto& vm : vms) ++per_name[vm.name];
  long n = 0;
  for (const auto& [name, count] : per_name)
    if (!name.empty() && count > 1) n += count - 1;
  return n;
}

long chaos_snapshot::stuck_nodeclaims() const {
  std::set<std::string> vm_names;
  for (const auto& vm : vms) vm_names.insert(vm.name);
  long n = 0;
  for (const auto& [name, claim] : nodeclaims) {
    auto node = nodes.find(claim.node_name);
    if (vm_names.count(name) == 0 || node == nodes.end() || !node->second) ++n;
  }
  return n;
}

std::string chaos_snapshot::line() const {
  long deleting = 0, ready = 0;
  for (const auto& [name, claim] : nodeclaims) deleting += claim.terminating ? 1 : 0;
  for (const auto& [name, is_ready] : nodes) ready += is_ready ? 1 : 0;
  std::string s =
      "pods " + std::to_string(pods_running) + "/" + std::to_string(pods_live) + " running";
  if (pods_terminating > 0) s += " (" + std::to_string(pods_terminating) + " terminating)";
  s += " | nodeclaims " + std::to_string(nodeclaims.size());
  if (deleting > 0) s += " (" + std::to_string(deleting) + " deleting)";
  s += " | nodes " + std::to_string(nodes.size()) + " (" + std::to_string(ready) +
       " ready) | VMs " + std::to_string(vms.size());
  // Said as they happen, so a run shows which kind of extra VM it met.
  if (auto n = leaked_vms(); n > 0) s += " (" + std::to_string(n) + " without NodeClaim)";
  if (auto n = duplicate_vms(); n > 0) s += " (" + std::to_string(n) + " duplicate)";
  return s;
}

}  // namespace kp::bench
