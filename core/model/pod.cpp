#include "core/model/pod.hpp"

#include "core/model/labels.hpp"

namespace kp::model {

namespace {

// Kubernetes' formula; `overflowed` names the first resource whose sum did not fit (the sums
// saturate), or stays empty.
resource_list requests_of(const pod& p, std::string& overflowed) {
  auto add = [&overflowed](resource_list& to, const resource_list& more) {
    std::string name;
    if (!to.add_checked(more, &name) && overflowed.empty()) overflowed = name;
  };
  resource_list containers;
  for (const auto& c : p.containers) add(containers, c.requests);
  resource_list sidecars;
  resource_list init_peak;
  for (const auto& c : p.init_containers) {
    if (c.restartable) {
      add(sidecars, c.requests);
      // A sidecar itself runs alongside the next init containers; its start counts as an
      // init step with the sidecars so far.
      init_peak = resource_list::max(init_peak, sidecars);
    } else {
      resource_list step = sidecars;
      add(step, c.requests);
      init_peak = resource_list::max(init_peak, step);
    }
  }
  add(containers, sidecars);
  resource_list out = resource_list::max(containers, init_peak);
  add(out, p.overhead);
  return out;
}

}  // namespace

resource_list pod_requests(const pod& p) {
  std::string overflowed;
  return requests_of(p, overflowed);
}

result<resource_list> checked_pod_requests(const pod& p) {
  std::string overflowed;
  auto out = requests_of(p, overflowed);
  if (overflowed.empty()) return out;
  return make_error("unrepresentable_requests",
                    "the pod's " + overflowed +
                        " requests add up to more than can be represented (the largest amount is "
                        "about 9.2e15 units, just over 8Pi)");
}

std::vector<host_port> pod_host_ports(const pod& p) {
  std::vector<host_port> out;
  for (const auto* list : {&p.init_containers, &p.containers})
    for (const auto& c : *list)
      for (const auto& hp : c.host_ports)
        if (hp.port > 0) out.push_back(hp);
  return out;
}

bool is_daemonset_pod(const pod& p) {
  for (const auto& o : p.owners)
    if (o.kind == "DaemonSet") return true;
  return false;
}

bool is_mirror_pod(const pod& p) {
  for (const auto& o : p.owners)
    if (o.kind == "Node") return true;
  return p.annotations.count("kubernetes.io/config.mirror") > 0;
}

bool is_terminal(const pod& p) {
  return p.phase == "Succeeded" || p.phase == "Failed";
}

bool has_do_not_disrupt(const pod& p) {
  auto it = p.annotations.find(annotations::do_not_disrupt);
  return it != p.annotations.end() && it->second == "true";
}

bool is_provisionable(const pod& p) {
  return p.unschedulable && p.node_name.empty() && p.nominated_node_name.empty() &&
         !is_daemonset_pod(p) && !is_mirror_pod(p) && !is_terminal(p) && !p.terminating;
}

}  // namespace kp::model
