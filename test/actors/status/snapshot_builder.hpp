#pragma once
// Builds cluster snapshots by hand for the status actors' tests (cluster_state is not needed):
// add objects of any kind, then take an immutable snapshot.
#include <memory>
#include <string>

#include "protocol/cluster_snapshot.hpp"

namespace kp::test {

class snapshot_builder {
 public:
  snapshot_builder& add(const kube::node_pool& p) { return put(pools_, p); }
  snapshot_builder& add(const kube::node_claim& c) { return put(claims_, c); }
  snapshot_builder& add(const kube::node& n) { return put(nodes_, n); }
  snapshot_builder& add(const kube::pod& p) { return put(pods_, p); }
  snapshot_builder& add(const kube::proxmox_node_class& c) { return put(classes_, c); }

  protocol::snapshot_ptr build(std::uint64_t generation = 1) const {
    auto s = std::make_shared<protocol::cluster_snapshot>();
    s->generation = generation;
    s->synced = true;
    s->node_pools = std::make_shared<const protocol::object_map<kube::node_pool>>(pools_);
    s->node_claims = std::make_shared<const protocol::object_map<kube::node_claim>>(claims_);
    s->nodes = std::make_shared<const protocol::object_map<kube::node>>(nodes_);
    s->pods = protocol::pod_models_of(pods_);
    s->node_classes =
        std::make_shared<const protocol::object_map<kube::proxmox_node_class>>(classes_);
    return s;
  }

 private:
  template <class T>
  snapshot_builder& put(protocol::object_map<T>& m, const T& object) {
    m[protocol::object_key_of(object)] = std::make_shared<const T>(object);
    return *this;
  }
  protocol::object_map<kube::node_pool> pools_;
  protocol::object_map<kube::node_claim> claims_;
  protocol::object_map<kube::node> nodes_;
  protocol::object_map<kube::pod> pods_;
  protocol::object_map<kube::proxmox_node_class> classes_;
};

inline kube::node_pool make_pool(const std::string& name,
                                 const std::string& nodeclass = "default") {
  kube::node_pool p;
  p.metadata.name = name;
  p.metadata.generation = 1;
  p.metadata.resource_version = "1";
  auto& s = p.spec.template_.spec;
  s.node_class_ref = {"karpenter.proxmox.sinextra.dev", "ProxmoxNodeClass", nodeclass};
  s.requirements.push_back({"kubernetes.io/arch", "In", {"amd64"}, std::nullopt});
  return p;
}

inline kube::proxmox_node_class make_class(const std::string& name, const std::string& ready) {
  kube::proxmox_node_class c;
  c.metadata.name = name;
  c.metadata.generation = 3;
  if (!ready.empty()) {
    kube::condition r;
    r.type = "Ready";
    r.status = ready;
    r.reason = "Ready";
    r.last_transition_time = "2025-01-01T00:00:00Z";
    c.status.conditions.push_back(r);
  }
  return c;
}

inline kube::node make_node(const std::string& name, const std::string& pool,
                            const std::string& cpu, const std::string& memory, bool ready = true) {
  kube::node n;
  n.metadata.name = name;
  if (!pool.empty()) n.metadata.labels["karpenter.sh/nodepool"] = pool;
  n.spec.provider_id = "proxmox://region-1/" + name;
  n.status.capacity = {{"cpu", cpu}, {"memory", memory}, {"pods", "110"}};
  n.status.allocatable = {{"cpu", cpu}, {"memory", memory}, {"pods", "110"}};
  kube::condition c;
  c.type = "Ready";
  c.status = ready ? "True" : "False";
  n.status.conditions.push_back(c);
  return n;
}

inline kube::node_claim make_claim(const std::string& name, const std::string& pool,
                                   const std::string& node_name, const std::string& cpu,
                                   const std::string& memory) {
  kube::node_claim c;
  c.metadata.name = name;
  c.metadata.labels["karpenter.sh/nodepool"] = pool;
  c.status.node_name = node_name;
  if (!node_name.empty()) c.status.provider_id = "proxmox://region-1/" + node_name;
  c.status.capacity = {{"cpu", cpu}, {"memory", memory}, {"pods", "110"}};
  return c;
}

}  // namespace kp::test
