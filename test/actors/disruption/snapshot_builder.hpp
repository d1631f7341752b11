#pragma once
// Hand-built API objects for disruption tests: one NodePool "default", managed nodes with their
// NodeClaims (Launched, Registered, Initialized), pods bound to them, PDBs; as a cluster
// snapshot (unit tests) or as objects to create in kube-sim (integration tests).
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "core/instance_types/instance_type.hpp"
#include "protocol/cluster_snapshot.hpp"
#include "protocol/kube/model_translation.hpp"

namespace kp::actors::disruption::testing {

using namespace std::chrono_literals;

// 2026-11-23 00:00 UTC.
inline constexpr std::int64_t now_ms = 1'795'392'000'000;

inline kube::resource_list api_resources(const model::resource_list& r) {
  kube::resource_list out;
  for (const auto& [k, q] : r.items()) out[k] = model::to_string(q);
  return out;
}

inline const instance_types::instance_type& builtin_type(const std::string& name) {
  static const auto types = instance_types::builtin_instance_types();
  for (const auto& t : types)
    if (t.name == name) return t;
  throw std::runtime_error("no instance type " + name);
}

struct snapshot_builder {
  std::int64_t now = now_ms;
  std::string type_name = instance_types::generic_name(2, 2);  // 2 vCPU, 4 GB
  protocol::object_map<kube::node> nodes;
  protocol::object_map<kube::node_claim> claims;
  protocol::object_map<kube::node_pool> pools;
  protocol::object_map<kube::pod> pods;
  protocol::object_map<kube::pod_disruption_budget> pdbs;
  protocol::object_map<kube::proxmox_node_class> classes;
  protocol::object_map<kube::proxmox_template> templates;
  protocol::object_map<kube::daemon_set> daemon_sets;
  std::uint64_t generation = 0;

  snapshot_builder() { pool("default", "100%"); }

  kube::node_pool& pool(const std::string& name, const std::string& budget) {
    auto p = std::make_shared<kube::node_pool>();
    p->metadata.name = name;
    p->metadata.uid = "uid-pool-" + name;
    p->spec.template_.spec.node_class_ref = {"karpenter.proxmox.sinextra.dev", "ProxmoxNodeClass",
                                             "default"};
    p->spec.template_.spec.requirements = {
        {"karpenter.sh/capacity-type", "In", {"on-demand"}, std::nullopt}};
    p->spec.disruption.consolidation_policy = "WhenEmptyOrUnderutilized";
    p->spec.disruption.consolidate_after = "0s";
    p->spec.disruption.budgets = {{budget, "", "", {}}};
    pools[name] = p;
    return *p;
  }
  kube::node_pool& pool_of(const std::string& name = "default") {
    return const_cast<kube::node_pool&>(*pools.at(name));
  }

  // A Ready node with its initialized NodeClaim "nc-<name>", created `age` ago.
  void add_node(const std::string& name, std::chrono::milliseconds age = 48h,
                const std::string& pool_name = "default") {
    const auto& t = builtin_type(type_name);
    const auto created = kube::format_rfc3339(now - age.count());
    auto n = std::make_shared<kube::node>();
    n->metadata.name = name;
    n->metadata.uid = "uid-" + name;
    n->metadata.creation_timestamp = created;
    n->metadata.labels = {{"node.kubernetes.io/instance-type", type_name},
                          {"topology.kubernetes.io/zone", "pve-1"},
                          {"topology.kubernetes.io/region", "region1"},
                          {"karpenter.sh/capacity-type", "on-demand"},
                          {"karpenter.sh/nodepool", pool_name},
                          {"kubernetes.io/hostname", name},
                          {"kubernetes.io/arch", "amd64"},
                          {"kubernetes.io/os", "linux"},
                          {"karpenter.sh/initialized", "true"},
                          {"karpenter.sh/registered", "true"}};
    n->spec.provider_id = "proxmox://region1/" + std::to_string(100 + nodes.size());
    n->status.capacity = api_resources(t.capacity);
    n->status.allocatable = api_resources(t.allocatable());
    n->status.conditions = {{"Ready", "True", "KubeletReady", "", created, created, 0}};
    auto c = std::make_shared<kube::node_claim>();
    c->metadata.name = "nc-" + name;
    c->metadata.uid = "uid-nc-" + name;
    c->metadata.creation_timestamp = created;
    c->metadata.labels = n->metadata.labels;
    c->spec.node_class_ref = {"karpenter.proxmox.sinextra.dev", "ProxmoxNodeClass", "default"};
    c->spec.requirements = {{"node.kubernetes.io/instance-type", "In", {type_name}, std::nullopt}};
    c->status.node_name = name;
    c->status.provider_id = n->spec.provider_id;
    c->status.capacity = n->status.capacity;
    c->status.allocatable = n->status.allocatable;
    for (const char* cond : {"Launched", "Registered", "Initialized"})
      c->status.conditions.push_back({cond, "True", "", "", created, "", 0});
    nodes[name] = n;
    claims[c->metadata.name] = c;
  }

  kube::node& node(const std::string& name) { return const_cast<kube::node&>(*nodes.at(name)); }
  kube::node_claim& claim(const std::string& name) {
    return const_cast<kube::node_claim&>(*claims.at(name));
  }

  // A running ReplicaSet pod on `node` (pending when node is "").
  kube::pod& add_pod(const std::string& node_name, const std::string& name,
                     std::int64_t cpu_milli = 100, std::int64_t mem_mib = 128) {
    auto p = std::make_shared<kube::pod>();
    p->metadata.name = name;
    p->metadata.namespace_ = "default";
    p->metadata.uid = "uid-" + name;
    p->metadata.labels = {{"app", name}};
    p->metadata.creation_timestamp = kube::format_rfc3339(now - 3'600'000);
    p->metadata.owner_references = {{"apps/v1", "ReplicaSet", "rs-" + name, "uid-rs", true, true}};
    kube::container c;
    c.name = "main";
    c.image = "nginx";
    c.resources.requests = {{"cpu", std::to_string(cpu_milli) + "m"},
                            {"memory", std::to_string(mem_mib) + "Mi"}};
    p->spec.containers.push_back(c);
    p->spec.node_name = node_name;
    p->status.phase = node_name.empty() ? "Pending" : "Running";
    if (node_name.empty())
      p->status.conditions = {{"PodScheduled", "False", "Unschedulable", "", "", "", 0}};
    pods["default/" + name] = p;
    return *p;
  }

  kube::pod_disruption_budget& add_pdb(const std::string& name, const std::string& app,
                                       std::int64_t allowed) {
    auto b = std::make_shared<kube::pod_disruption_budget>();
    b->metadata.name = name;
    b->metadata.namespace_ = "default";
    b->spec.selector = kube::label_selector{{{"app", app}}, {}};
    b->status.disruptions_allowed = allowed;
    pdbs["default/" + name] = b;
    return *b;
  }

  protocol::snapshot_ptr build(bool synced = true) {
    auto s = std::make_shared<protocol::cluster_snapshot>();
    s->generation = ++generation;
    s->taken_unix_ms = now;
    s->synced = synced;
    s->nodes = std::make_shared<protocol::object_map<kube::node>>(nodes);
    s->node_claims = std::make_shared<protocol::object_map<kube::node_claim>>(claims);
    s->node_pools = std::make_shared<protocol::object_map<kube::node_pool>>(pools);
    s->pods = protocol::pod_models_of(pods);
    s->pod_disruption_budgets =
        std::make_shared<protocol::object_map<kube::pod_disruption_budget>>(pdbs);
    s->node_classes = std::make_shared<protocol::object_map<kube::proxmox_node_class>>(classes);
    s->templates = std::make_shared<protocol::object_map<kube::proxmox_template>>(templates);
    s->daemon_sets = std::make_shared<protocol::object_map<kube::daemon_set>>(daemon_sets);
    return s;
  }
};

}  // namespace kp::actors::disruption::testing
