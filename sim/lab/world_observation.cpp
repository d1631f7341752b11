#include "sim/lab/world_observation.hpp"

#include <boost/json.hpp>

#include "sim/lab/json_fields.hpp"
#include "sim/lab/lab_world.hpp"

namespace kp::lab {

namespace json = boost::json;

namespace {

bool owned_by_daemon_set(const json::object& pod) {
  const auto* meta = pod.if_contains("metadata");
  const auto* refs =
      meta && meta->is_object() ? meta->as_object().if_contains("ownerReferences") : nullptr;
  if (refs == nullptr || !refs->is_array()) return false;
  for (const auto& r : refs->as_array())
    if (r.is_object() && string_at(r.as_object(), {"kind"}) == "DaemonSet") return true;
  return false;
}

}  // namespace

bool node_ready(const json::object& node) {
  const auto* status = node.if_contains("status");
  if (status == nullptr || !status->is_object()) return false;
  const auto* conditions = status->as_object().if_contains("conditions");
  if (conditions == nullptr || !conditions->is_array()) return false;
  for (const auto& c : conditions->as_array())
    if (c.is_object() && string_at(c.as_object(), {"type"}) == "Ready")
      return string_at(c.as_object(), {"status"}) == "True";
  return false;
}

bool rolled_out(const std::string& kind, const json::object& o) {
  if (int_at(o, {"status", "observedGeneration"}) < int_at(o, {"metadata", "generation"}))
    return false;
  if (kind == "Deployment") {
    auto updated = int_at(o, {"status", "updatedReplicas"});
    return updated >= int_at(o, {"spec", "replicas"}, 1) &&
           int_at(o, {"status", "replicas"}) <= updated &&
           int_at(o, {"status", "availableReplicas"}) >= updated;
  }
  if (kind == "DaemonSet") {
    auto desired = int_at(o, {"status", "desiredNumberScheduled"});
    return int_at(o, {"status", "updatedNumberScheduled"}) >= desired &&
           int_at(o, {"status", "numberAvailable"}) >= desired;
  }
  auto replicas = int_at(o, {"spec", "replicas"}, 1);
  if (int_at(o, {"status", "readyReplicas"}) < replicas) return false;
  auto partition = int_at(o, {"spec", "updateStrategy", "rollingUpdate", "partition"}, -1);
  if (partition >= 0) return int_at(o, {"status", "updatedReplicas"}) >= replicas - partition;
  return string_at(o, {"status", "updateRevision"}) == string_at(o, {"status", "currentRevision"});
}

long world_observation::metric(const std::string& name) const {
  if (name == "pods") return pods;
  if (name == "app_pods") return pods - daemon_pods;
  if (name == "daemon_pods") return daemon_pods;
  if (name == "rollouts_pending") return rollouts_pending;
  if (name == "pvcs") return pvcs;
  if (name == "pods_running") return pods_running;
  if (name == "pods_pending") return pods_pending;
  if (name == "nodeclaims") return nodeclaims;
  if (name == "nodes") return nodes;
  if (name == "nodes_ready") return nodes_ready;
  if (name == "vms") return vms;
  return -1;
}

std::string world_observation::line() const {
  std::string s = "pods " + std::to_string(pods_pending) + " pending / " +
                  std::to_string(pods_running) + " running";
  if (pods != pods_pending + pods_running)
    s += " (" + std::to_string(pods - pods_pending - pods_running) + " other)";
  if (daemon_pods > 0) s += " (" + std::to_string(daemon_pods) + " daemon)";
  s += " | nodeclaims " + std::to_string(nodeclaims) + " | nodes " + std::to_string(nodes) + " (" +
       std::to_string(nodes_ready) + " ready) | VMs " + std::to_string(vms);
  if (!vms_per_host.empty()) {
    s += " (";
    bool first = true;
    for (const auto& [host, n] : vms_per_host) {
      s += (first ? "" : ", ") + host + " " + std::to_string(n);
      first = false;
    }
    s += ")";
  }
  if (rollouts_pending > 0) s += " | rollouts " + std::to_string(rollouts_pending) + " pending";
  if (pvcs > 0) s += " | PVCs " + std::to_string(pvcs);
  return s;
}

result<world_observation> observe(lab_world& world) {
  world_observation o;
  auto pods = world.list("/api/v1/pods");
  if (!pods) return pods.error();
  for (const auto& p : *pods) {
    if (!p.is_object()) continue;
    ++o.pods;
    if (owned_by_daemon_set(p.as_object())) ++o.daemon_pods;
    auto phase = string_at(p.as_object(), {"status", "phase"});
    if (phase == "Running") ++o.pods_running;
    if (phase == "Pending" || phase.empty()) ++o.pods_pending;
  }
  auto nodes = world.list("/api/v1/nodes");
  if (!nodes) return nodes.error();
  for (const auto& n : *nodes) {
    ++o.nodes;
    if (!n.is_object() || !node_ready(n.as_object())) continue;
    ++o.nodes_ready;
    bool tainted = false;
    if (const auto* spec = n.as_object().if_contains("spec"); spec && spec->is_object())
      if (const auto* taints = spec->as_object().if_contains("taints");
          taints && taints->is_array())
        for (const auto& t : taints->as_array())
          if (t.is_object()) {
            auto effect = string_at(t.as_object(), {"effect"});
            tainted = tainted || effect == "NoSchedule" || effect == "NoExecute";
          }
    if (!tainted) ++o.nodes_untainted;
  }
  // NodeClaims exist once the CRDs are applied; before that the count is zero.
  if (auto claims = world.list("/apis/karpenter.sh/v1/nodeclaims"))
    o.nodeclaims = static_cast<long>(claims->size());
  static const std::pair<const char*, const char*> workloads[] = {
      {"deployments", "Deployment"}, {"statefulsets", "StatefulSet"}, {"daemonsets", "DaemonSet"}};
  for (const auto& [plural, kind] : workloads) {
    auto items = world.list(std::string("/apis/apps/v1/") + plural);
    if (!items) return items.error();
    for (const auto& item : *items)
      if (item.is_object() && !rolled_out(kind, item.as_object())) ++o.rollouts_pending;
  }
  if (auto claims = world.list("/api/v1/persistentvolumeclaims"))
    o.pvcs = static_cast<long>(claims->size());
  auto vms = world.vms(true);
  if (!vms) return vms.error();
  for (const auto& vm : *vms) {
    if (vm.templated) continue;  // node VMs only
    ++o.vms;
    ++o.vms_per_host[vm.node];
    o.vmids.insert(vm.vmid);
  }
  return o;
}

}  // namespace kp::lab
