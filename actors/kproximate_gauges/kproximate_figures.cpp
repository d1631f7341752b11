#include "actors/kproximate_gauges/kproximate_figures.hpp"

#include <set>
#include <string>

#include "core/model/pod.hpp"
#include "protocol/kube/model_translation.hpp"

namespace kp::actors::kproximate_gauges {
namespace {

bool ready(const kube::node& node) {
  for (const auto& c : node.status.conditions)
    if (c.type == "Ready") return c.status == "True";
  return false;
}

double units(const model::resource_list& list, std::string_view name) {
  return static_cast<double>(list.milli(name)) / 1000.0;
}

}  // namespace

bool is_our_node(const kube::node& node, const protocol::cluster_snapshot& snapshot) {
  if (node.spec.provider_id.rfind("proxmox://", 0) == 0) return true;
  if (!snapshot.node_claims) return false;
  for (const auto& [key, claim] : *snapshot.node_claims)
    if (claim->status.node_name == node.metadata.name) return true;
  return false;
}

kproximate_figures figures_of(const protocol::cluster_snapshot& snapshot) {
  kproximate_figures f;
  std::set<std::string> ours;
  if (snapshot.nodes) {
    std::set<std::string> claimed;
    if (snapshot.node_claims)
      for (const auto& [key, claim] : *snapshot.node_claims)
        if (!claim->status.node_name.empty()) claimed.insert(claim->status.node_name);
    for (const auto& [key, node] : *snapshot.nodes) {
      const bool our = node->spec.provider_id.rfind("proxmox://", 0) == 0 ||
                       claimed.count(node->metadata.name) > 0;
      if (!our || !ready(*node)) continue;
      ours.insert(node->metadata.name);
      f.kpnodes_running += 1;
      if (auto cap = model::parse_resource_list(node->status.capacity)) {
        f.cpu_provisioned += units(*cap, model::resource_names::cpu);
        f.memory_provisioned += units(*cap, model::resource_names::memory);
      }
      if (auto alloc = model::parse_resource_list(node->status.allocatable)) {
        f.cpu_allocatable += units(*alloc, model::resource_names::cpu);
        f.memory_allocatable += units(*alloc, model::resource_names::memory);
      }
    }
  }
  if (snapshot.pods && !ours.empty()) {
    for (const auto& [key, entry] : *snapshot.pods) {
      const auto& pod = *entry.pod;
      if (!ours.count(pod.node_name) || model::is_terminal(pod) || !entry.valid()) continue;
      auto requests = model::pod_requests(pod);
      f.cpu_allocated += units(requests, model::resource_names::cpu);
      f.memory_allocated += units(requests, model::resource_names::memory);
    }
  }
  return f;
}

}  // namespace kp::actors::kproximate_gauges
