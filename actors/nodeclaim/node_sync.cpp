#include "actors/nodeclaim/node_sync.hpp"

#include <algorithm>

#include "actors/nodeclaim/launch_plan.hpp"
#include "core/model/quantity.hpp"

namespace kp::actors::nodeclaim {
namespace {

bool same_taint(const kube::taint& a, const kube::taint& b) {
  return a.key == b.key && a.effect == b.effect;
}

bool has_taint(const std::vector<kube::taint>& taints, const kube::taint& t) {
  return std::any_of(taints.begin(), taints.end(),
                     [&](const kube::taint& x) { return same_taint(x, t); });
}

// Taints a booting node carries for a while that never block initialization's end by
// themselves once gone (karpenter-core.md 1.4).
bool known_ephemeral(const kube::taint& t) {
  return t.key == "node.kubernetes.io/not-ready" || t.key == "node.kubernetes.io/unreachable" ||
         t.key == "node.cloudprovider.kubernetes.io/uninitialized" ||
         t.key == unregistered_taint_key || t.key.rfind("readiness.k8s.io/", 0) == 0;
}

}  // namespace

bool sync_registered_node(kube::node& node, const kube::node_claim& claim) {
  bool changed = false;
  auto set_label = [&](const std::string& k, const std::string& v) {
    auto it = node.metadata.labels.find(k);
    if (it == node.metadata.labels.end() || it->second != v) {
      node.metadata.labels[k] = v;
      changed = true;
    }
  };
  for (const auto& [k, v] : claim.metadata.labels) set_label(k, v);
  set_label("karpenter.sh/registered", "true");
  if (claim.metadata.labels.count("karpenter.sh/do-not-sync-taints") == 0) {
    for (const auto* list : {&claim.spec.taints, &claim.spec.startup_taints}) {
      for (const auto& t : *list) {
        if (!has_taint(node.spec.taints, t)) {
          node.spec.taints.push_back(t);
          changed = true;
        }
      }
    }
  }
  auto before = node.spec.taints.size();
  node.spec.taints.erase(
      std::remove_if(node.spec.taints.begin(), node.spec.taints.end(),
                     [](const kube::taint& t) { return t.key == unregistered_taint_key; }),
      node.spec.taints.end());
  changed = changed || before != node.spec.taints.size();
  auto& fin = node.metadata.finalizers;
  const std::string finalizer = termination_finalizer;
  if (std::find(fin.begin(), fin.end(), finalizer) == fin.end()) {
    fin.push_back(finalizer);
    changed = true;
  }
  auto& owners = node.metadata.owner_references;
  bool owned = std::any_of(owners.begin(), owners.end(), [&](const kube::owner_reference& o) {
    return o.kind == "NodeClaim" && o.uid == claim.metadata.uid;
  });
  if (!owned && !claim.metadata.uid.empty()) {
    kube::owner_reference o;
    o.api_version = "karpenter.sh/v1";
    o.kind = "NodeClaim";
    o.name = claim.metadata.name;
    o.uid = claim.metadata.uid;
    o.block_owner_deletion = true;
    owners.push_back(std::move(o));
    changed = true;
  }
  return changed;
}

std::optional<condition_reason> not_initialized_reason(const kube::node& node,
                                                       const kube::node_claim& claim) {
  bool ready = false;
  for (const auto& c : node.status.conditions) {
    if (c.type == "Ready") ready = c.status == "True";
  }
  if (!ready) return condition_reason("NodeNotReady");
  for (const auto& t : claim.spec.startup_taints) {
    if (has_taint(node.spec.taints, t)) return condition_reason("StartupTaintsExist");
  }
  for (const auto& t : node.spec.taints) {
    if (known_ephemeral(t)) return condition_reason("KnownEphemeralTaintsExist");
  }
  // A device plugin registers its resource after the kubelet is ready: zero or absent until then.
  // Only extended resources (domain/name) wait: the kubelet itself reports cpu, memory and pods.
  auto zero = [](const std::string& text) {
    auto q = model::parse_quantity(text);
    return !q || q->is_zero();
  };
  for (const auto& [name, requested] : claim.spec.resource_requests) {
    if (name.find('/') == std::string::npos || zero(requested)) continue;
    auto it = node.status.allocatable.find(name);
    if (it == node.status.allocatable.end() || zero(it->second))
      return condition_reason("ResourceNotRegistered");
  }
  return std::nullopt;
}

}  // namespace kp::actors::nodeclaim
