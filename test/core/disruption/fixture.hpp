#pragma once
// Builders for disruption scenarios: the Proxmox built-in types offered on one host, one
// NodePool "default", managed nodes with their NodeClaims, and pods bound to them. Shared by
// the tests and bench/disruption.
#include <chrono>
#include <stdexcept>
#include <string>

#include "core/disruption/cluster.hpp"
#include "core/instance_types/instance_type.hpp"
#include "core/model/labels.hpp"

namespace kp::disruption::fixture {

using namespace std::chrono_literals;
namespace ml = model::labels;

// 2026-11-22 00:00 UTC; every scenario's "now" is this plus what it needs.
inline constexpr std::int64_t epoch_ms = 1'795'305'600'000;

inline model::quantity mib(std::int64_t m) {
  return model::quantity{m * 1024 * 1024 * 1000, model::quantity_format::binary_si};
}

inline std::chrono::sys_seconds at_ms(std::int64_t ms) {
  return std::chrono::sys_seconds(std::chrono::seconds(ms / 1000));
}

struct builder {
  cluster c;
  std::int64_t now_ms = epoch_ms + 24 * 3600 * 1000;  // one day after the epoch

  builder() {
    c.state.instance_types = instance_types::builtin_instance_types();
    instance_types::build_offerings(c.state.instance_types,
                                    {{"region1", "pve-1", 100000, 1LL << 50, true}});
    model::nodepool np;
    np.name = "default";
    np.template_.node_class = {"karpenter.proxmox.sinextra.dev", "ProxmoxNodeClass", "default"};
    np.disruption.budgets = {model::disruption_budget{"100%", "", "", {}}};
    c.state.nodepools.push_back(np);
    c.drift["default"] = {"hash-a", "v3", "class-a", "v1", "image-a"};
    c.now = at_ms(now_ms);
  }

  model::nodepool& pool() { return c.state.nodepools.front(); }

  const instance_types::instance_type& type(const std::string& name) const {
    for (const auto& t : c.state.instance_types)
      if (t.name == name) return t;
    throw std::runtime_error("no instance type " + name);
  }

  // A managed, initialized, Ready node of `type_name`, created (and initialized) `age` ago.
  model::node& add_node(const std::string& name, const std::string& type_name,
                        std::chrono::milliseconds age = 48h) {
    const auto& t = type(type_name);
    const std::int64_t created = now_ms - age.count();
    model::node n;
    n.name = name;
    n.uid = "uid-" + name;
    n.provider_id = "proxmox://region1/" + std::to_string(c.state.nodes.size() + 100);
    n.labels = {{std::string(ml::instance_type), type_name},
                {std::string(ml::zone), "pve-1"},
                {std::string(ml::region), "region1"},
                {std::string(ml::capacity_type), "on-demand"},
                {std::string(ml::nodepool), "default"},
                {std::string(ml::hostname), name},
                {std::string(ml::arch), "amd64"},
                {std::string(ml::os), "linux"},
                {std::string(ml::initialized), "true"}};
    n.capacity = t.capacity;
    n.allocatable = t.allocatable();
    n.ready = true;
    n.creation_unix_ms = created;
    model::nodeclaim nc;
    nc.name = "nc-" + name;
    nc.uid = "uid-nc-" + name;
    nc.nodepool = "default";
    nc.node_name = name;
    nc.provider_id = n.provider_id;
    nc.image_id = "image-a";
    nc.creation_unix_ms = created;
    nc.annotations = {{"karpenter.sh/nodepool-hash", "hash-a"},
                      {"karpenter.sh/nodepool-hash-version", "v3"},
                      {std::string(annotations::nodeclass_hash), "class-a"},
                      {std::string(annotations::nodeclass_hash_version), "v1"}};
    for (const char* cond : {"Launched", "Registered", "Initialized"})
      nc.conditions.push_back({cond, "True", "", "", created});
    // Made mutable (not model::share) so that node() and claim() may hand them out to shape.
    c.state.nodeclaims.push_back(std::make_shared<model::nodeclaim>(std::move(nc)));
    c.state.nodes.push_back(std::make_shared<model::node>(std::move(n)));
    return node(c.state.nodes.size() - 1);
  }

  // Tests shape nodes and NodeClaims after adding them, before anything reads them: the
  // snapshot's shared models are still this fixture's alone, and were made as mutable objects.
  model::node& node(std::size_t index) {
    return const_cast<model::node&>(*c.state.nodes.at(index));
  }
  model::nodeclaim& claim(const std::string& node) {
    for (auto& nc : c.state.nodeclaims)
      if (nc->node_name == node) return const_cast<model::nodeclaim&>(*nc);
    throw std::runtime_error("no NodeClaim for " + node);
  }

  // A running ReplicaSet pod on `node`, started `age` ago.
  model::pod& add_pod(const std::string& node, const std::string& name, std::int64_t cpu_milli,
                      std::int64_t mem_mib, std::chrono::milliseconds age = 24h) {
    model::pod p;
    p.name = name;
    p.namespace_ = "default";
    p.uid = "uid-" + name;
    p.labels = {{"app", name}};
    p.creation_unix_ms = now_ms - age.count();
    p.start_unix_ms = p.creation_unix_ms;
    p.node_name = node;
    p.phase = "Running";
    p.owners.push_back({"ReplicaSet", "rs-" + name, "uid-rs-" + name, true});
    model::container ct;
    ct.name = "main";
    ct.requests.set("cpu", model::quantity::from_milli(cpu_milli));
    ct.requests.set("memory", mib(mem_mib));
    p.containers.push_back(ct);
    // Tests adjust the pod after adding it: the cluster shares it read-only, the test holds
    // it writable.
    auto shared = std::make_shared<model::pod>(std::move(p));
    c.state.bound_pods.push_back(shared);
    return *shared;
  }
};

}  // namespace kp::disruption::fixture
