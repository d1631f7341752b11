#include "cmd/karpenter-proxmox/view/view_snapshot.hpp"

#include <algorithm>
#include <map>

#include "actors/fleet_gauges/claim_lifecycle.hpp"
#include "actors/region/inventory.hpp"
#include "cmd/karpenter-proxmox/plan/live_placement.hpp"
#include "core/model/labels.hpp"
#include "protocol/kube/model_translation.hpp"
#include "protocol/provider_id.hpp"

namespace kp::view {
namespace {

namespace region = actors::region;

std::string key_of(const kube::object_meta& m) {
  return m.namespace_.empty() ? m.name : m.namespace_ + "/" + m.name;
}

std::optional<std::int64_t> age_of(const std::string& created, std::int64_t now_ms) {
  auto ms = kube::parse_rfc3339_ms(created);
  if (!ms) return std::nullopt;
  return std::max<std::int64_t>((now_ms - *ms) / 1000, 0);
}

std::string label(const kube::object_meta& m, std::string_view key) {
  auto it = m.labels.find(std::string(key));
  return it == m.labels.end() ? "" : it->second;
}

// "Unschedulable: 0/3 nodes are available: ..." from PodScheduled=False, "" otherwise.
std::string scheduling_reason(const kube::pod& p) {
  for (const auto& c : p.status.conditions) {
    if (c.type != "PodScheduled" || c.status != "False") continue;
    if (c.message.empty()) return c.reason;
    return c.reason.empty() ? c.message : c.reason + ": " + c.message;
  }
  return "";
}

bool finished(const kube::pod& p) {
  return p.status.phase == "Succeeded" || p.status.phase == "Failed";
}

struct kube_index {
  std::map<std::pair<std::string, std::uint32_t>, const kube::node_claim*> claim_by_vm;
  std::map<std::string, const kube::node_claim*> claim_by_name;
  std::map<std::string, const kube::node*> node_by_name;
  std::map<std::pair<std::string, std::uint32_t>, const kube::node*> node_by_vm;
  std::map<std::string, std::vector<std::string>> pods_by_node;
};

kube_index index_of(const protocol::cluster_snapshot& snap,
                    const protocol::shared_objects<kube::pod>& pods) {
  kube_index ix;
  if (snap.node_claims) {
    for (const auto& [name, claim] : *snap.node_claims) {
      ix.claim_by_name[claim->metadata.name] = claim.get();
      if (auto id = protocol::parse_provider_id(claim->status.provider_id))
        ix.claim_by_vm[{id->region, id->vmid}] = claim.get();
    }
  }
  if (snap.nodes) {
    for (const auto& [name, node] : *snap.nodes) {
      ix.node_by_name[node->metadata.name] = node.get();
      if (auto id = protocol::parse_provider_id(node->spec.provider_id))
        ix.node_by_vm[{id->region, id->vmid}] = node.get();
    }
  }
  if (pods) {
    for (const auto& [key, pod] : *pods)
      if (!pod->spec.node_name.empty() && !finished(*pod))
        ix.pods_by_node[pod->spec.node_name].push_back(key_of(pod->metadata));
  }
  return ix;
}

std::optional<double> price_of(const std::vector<instance_types::instance_type>& types,
                               const std::string& name, const std::string& region_name,
                               const std::string& host) {
  for (const auto& t : types) {
    if (t.name != name) continue;
    return plan::offering_price(t, region_name, host,
                                instance_types::synthetic_price(t.vm_cpus, t.vm_memory_bytes));
  }
  return std::nullopt;
}

// The NodeClaim of a VM: by its providerID, else by the ownership mark of this cluster.
const kube::node_claim* claim_of(const kube_index& ix, const std::string& region_name,
                                 const region::vm_record& vm, const std::string& cluster,
                                 bool& ours) {
  ours = false;
  if (auto it = ix.claim_by_vm.find({region_name, vm.vmid}); it != ix.claim_by_vm.end()) {
    ours = true;
    return it->second;
  }
  auto mark = region::mark_of(vm);
  if (!mark || mark->cluster != cluster) return nullptr;
  ours = true;
  auto it = ix.claim_by_name.find(mark->nodeclaim);
  return it == ix.claim_by_name.end() ? nullptr : it->second;
}

vm_view vm_of(const view_input& in, const kube_index& ix,
              const std::vector<instance_types::instance_type>& types,
              const std::string& region_name, const region::vm_record& vm,
              const kube::node_claim* claim) {
  vm_view v;
  v.vmid = vm.vmid;
  v.name = vm.name;
  v.status = vm.status;
  const kube::node* node = nullptr;
  if (auto it = ix.node_by_vm.find({region_name, vm.vmid}); it != ix.node_by_vm.end())
    node = it->second;
  if (claim != nullptr) {
    v.nodeclaim = claim->metadata.name;
    v.phase = std::string(actors::fleet_gauges::to_string(actors::fleet_gauges::phase_of(*claim)));
    v.instance_type = label(claim->metadata, model::labels::instance_type);
    if (node == nullptr && !claim->status.node_name.empty()) {
      auto it = ix.node_by_name.find(claim->status.node_name);
      if (it != ix.node_by_name.end()) node = it->second;
    }
  } else if (auto mark = region::mark_of(vm)) {
    v.nodeclaim = mark->nodeclaim;
    v.phase = "no NodeClaim";
  }
  if (node != nullptr) {
    v.node = node->metadata.name;
    if (v.instance_type.empty())
      v.instance_type = label(node->metadata, model::labels::instance_type);
    if (auto pods = ix.pods_by_node.find(v.node); pods != ix.pods_by_node.end())
      v.pods = pods->second;
  }
  if (!v.instance_type.empty()) v.price = price_of(types, v.instance_type, region_name, vm.node);
  if (vm.config) {
    auto held = region::allocation_from_config(static_cast<int>(vm.vmid), *vm.config, true);
    v.vcpus = held.vcpus;
    v.memory_bytes = held.memory_bytes;
    if (!held.pinned.empty()) v.pinned_cpus = held.pinned.to_string();
    for (const auto& b : held.numa)
      if (std::find(v.numa_nodes.begin(), v.numa_nodes.end(), b.host_node) == v.numa_nodes.end())
        v.numa_nodes.push_back(b.host_node);
  }
  // The Node's age, as kubectl shows it; before it registers, the NodeClaim's; else the VM's.
  if (node != nullptr) {
    v.age_seconds = age_of(node->metadata.creation_timestamp, in.now_unix_ms);
  } else if (claim != nullptr) {
    v.age_seconds = age_of(claim->metadata.creation_timestamp, in.now_unix_ms);
  } else if (vm.config) {
    if (auto created = region::creation_time(*vm.config); created > 0)
      v.age_seconds = std::max<std::int64_t>(in.now_unix_ms / 1000 - created, 0);
  }
  return v;
}

host_view host_of(const std::string& region_name, const region::host_record& host,
                  const placement::host_state* placed) {
  host_view h;
  h.region = region_name;
  h.name = host.name;
  h.online = host.online();
  if (placed == nullptr) return h;
  const auto& topology = placed->topology();
  h.topology_known = true;
  h.cpus = topology.total_cpus();
  h.free_cpus = placed->free_cpus();
  h.memory_bytes = topology.total_memory();
  h.free_memory_bytes = placed->free_memory();
  for (std::size_t i = 0; i < topology.numa_nodes.size(); ++i) {
    const auto& n = topology.numa_nodes[i];
    h.numa.push_back({n.id, n.cpus.size(), placed->numa_free_cpus(i), n.memory_bytes,
                      placed->numa_free_memory(i)});
  }
  return h;
}

}  // namespace

view_snapshot build_view_snapshot(const view_input& in) {
  view_snapshot out;
  const auto& world = *in.world;
  out.cluster = world.cluster_name;
  out.taken_unix_ms = in.now_unix_ms;
  const auto regions = plan::placement_view(world, in.node_settings, out.notes);
  const auto types = plan::offered_types(in.instance_types, regions);
  const auto ix = index_of(world.snapshot, world.pods);

  std::map<std::string, std::string> host_of_claim;
  for (const auto& reading : world.regions) {
    if (!reading.error.empty()) continue;  // placement_view noted it
    const auto& placed = regions.at(reading.region).hosts;
    for (const auto& [name, host] : reading.hosts) {
      auto state = std::find_if(placed.begin(), placed.end(),
                                [&](const auto& h) { return h.name() == name; });
      auto h = host_of(reading.region, host, state == placed.end() ? nullptr : &*state);
      for (const auto& [vmid, vm] : reading.vms) {
        if (vm.node != name) continue;
        bool ours = false;
        const auto* claim = vm.is_template || vm.is_container
                                ? nullptr
                                : claim_of(ix, reading.region, vm, world.cluster_name, ours);
        if (!ours) {
          ++h.other_vms;
          continue;
        }
        h.vms.push_back(vm_of(in, ix, types, reading.region, vm, claim));
        if (claim != nullptr) host_of_claim[claim->metadata.name] = name;
      }
      out.hosts.push_back(std::move(h));
    }
  }

  if (world.pods) {
    for (const auto& [key, pod] : *world.pods) {
      if (!pod->spec.node_name.empty() || pod->status.phase != "Pending" ||
          pod->metadata.deletion_timestamp)
        continue;
      pending_pod_view p;
      p.pod = key_of(pod->metadata);
      p.age_seconds = age_of(pod->metadata.creation_timestamp, in.now_unix_ms);
      p.reason = scheduling_reason(*pod);
      if (auto m = kube::to_model(*pod)) {
        auto requests = model::pod_requests(*m);
        p.cpu_milli = requests.milli(model::resource_names::cpu);
        p.memory_bytes = requests.milli(model::resource_names::memory) / 1000;
      }
      out.pending.push_back(std::move(p));
    }
  }

  if (world.snapshot.node_claims) {
    for (const auto& [name, claim] : *world.snapshot.node_claims) {
      auto phase = actors::fleet_gauges::phase_of(*claim);
      if (phase == actors::fleet_gauges::claim_phase::ready) continue;
      claim_in_flight c;
      c.name = claim->metadata.name;
      c.nodepool = actors::fleet_gauges::nodepool_of(*claim);
      c.instance_type = label(claim->metadata, model::labels::instance_type);
      c.phase = std::string(actors::fleet_gauges::to_string(phase));
      if (auto h = host_of_claim.find(c.name); h != host_of_claim.end()) c.host = h->second;
      c.age_seconds = age_of(claim->metadata.creation_timestamp, in.now_unix_ms);
      out.in_flight.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace kp::view
