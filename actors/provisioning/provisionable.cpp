#include "actors/provisioning/provisionable.hpp"

namespace kp::actors::provisioning {

namespace {

bool unschedulable(const kube::pod& pod) {
  for (const auto& c : pod.status.conditions)
    if (c.type == "PodScheduled") return c.status == "False" && c.reason == "Unschedulable";
  return false;
}

bool owned_by(const kube::pod& pod, const char* kind) {
  for (const auto& o : pod.metadata.owner_references)
    if (o.kind == kind) return true;
  return false;
}

}  // namespace

bool is_provisionable(const kube::pod& pod, const protocol::cluster_snapshot& snap) {
  if (!unschedulable(pod)) return false;
  if (!pod.spec.node_name.empty()) return false;
  if (!pod.status.phase.empty() && pod.status.phase != "Pending") return false;
  if (pod.metadata.deletion_timestamp) return false;
  if (owned_by(pod, "DaemonSet") || owned_by(pod, "Node")) return false;
  // A preempting pod waits for victims on its nominated node; it only needs a new node when
  // that node is gone.
  const auto& nominated = pod.status.nominated_node_name;
  if (!nominated.empty() && protocol::cluster_snapshot::find(snap.nodes, nominated) != nullptr)
    return false;
  return true;
}

std::vector<const kube::pod*> provisionable_pods(const protocol::cluster_snapshot& snap) {
  std::vector<const kube::pod*> out;
  if (!snap.pods) return out;
  for (const auto& [key, pod] : *snap.pods)
    if (is_provisionable(*pod, snap)) out.push_back(pod.get());
  return out;
}

}  // namespace kp::actors::provisioning
