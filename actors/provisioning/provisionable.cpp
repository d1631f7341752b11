#include "actors/provisioning/provisionable.hpp"

namespace kp::actors::provisioning {

namespace {

bool owned_by(const model::pod& pod, const char* kind) {
  for (const auto& o : pod.owners)
    if (o.kind == kind) return true;
  return false;
}

}  // namespace

bool is_provisionable(const model::pod& pod, const protocol::cluster_snapshot& snap) {
  if (!pod.unschedulable) return false;
  if (!pod.node_name.empty()) return false;
  if (pod.phase != "Pending") return false;  // an unset phase reads as Pending
  if (pod.terminating) return false;
  if (owned_by(pod, "DaemonSet") || owned_by(pod, "Node")) return false;
  // A preempting pod waits for victims on its nominated node; it only needs a new node when
  // that node is gone.
  const auto& nominated = pod.nominated_node_name;
  if (!nominated.empty() && protocol::cluster_snapshot::find(snap.nodes, nominated) != nullptr)
    return false;
  return true;
}

std::vector<const protocol::pod_model*> provisionable_pods(const protocol::cluster_snapshot& snap) {
  std::vector<const protocol::pod_model*> out;
  if (!snap.pods) return out;
  for (const auto& [key, entry] : *snap.pods)
    if (is_provisionable(*entry.pod, snap)) out.push_back(&entry);
  return out;
}

}  // namespace kp::actors::provisioning
