#include "actors/nodeclaim/launch_plan.hpp"

#include <algorithm>
#include <limits>

#include "actors/nodeclaim/agent_join.hpp"
#include "core/instance_types/offering_override.hpp"
#include "core/model/labels.hpp"
#include "core/model/quantity.hpp"
#include "protocol/kube/node_class_pci.hpp"

namespace kp::actors::nodeclaim {
namespace {

bool contains(const std::vector<std::string>& values, const std::string& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// The label values an instance type offers in `region`, for the keys a requirement may name.
std::map<std::string, std::string> type_labels(const instance_types::instance_type& type,
                                               const std::string& region) {
  return {{instance_type_label, type.name},
          {instance_family_label, type.family},
          {capacity_type_label, type.capacity_type.empty() ? "on-demand" : type.capacity_type},
          {"kubernetes.io/arch", "amd64"},
          {"kubernetes.io/os", "linux"},
          {region_label, region}};
}

// Requirements on keys the type does not define (zone, nodepool, custom labels) are the
// claim's own and hold for any type; the zone is placement's business.
bool satisfies(const std::map<std::string, std::string>& labels,
               const kube::node_selector_requirement& r) {
  auto it = labels.find(r.key);
  if (it == labels.end()) return true;
  const auto& v = it->second;
  if (r.operator_ == "In") return contains(r.values, v);
  if (r.operator_ == "NotIn") return !contains(r.values, v);
  if (r.operator_ == "DoesNotExist") return false;
  return true;  // Exists, and numeric comparisons on keys that are not numbers here
}

double price_of(const instance_types::instance_type& type, const std::string& region) {
  double best = std::numeric_limits<double>::max();
  for (const auto& o : type.offerings) {
    if (o.region == region && o.available) best = std::min(best, o.price);
  }
  if (best == std::numeric_limits<double>::max()) {
    best = instance_types::synthetic_price(type.vm_cpus, type.vm_memory_bytes);
  }
  return best;
}

const kube::node_selector_requirement* requirement(const kube::node_claim& claim,
                                                   const std::string& key) {
  for (const auto& r : claim.spec.requirements) {
    if (r.key == key) return &r;
  }
  return nullptr;
}

// A reserved type launches only for a NodeClaim the provisioner pinned to one of its
// reservations, so no launch goes over a reservation's count.
bool may_launch_reserved(const instance_types::instance_type& type, const kube::node_claim& claim) {
  if (type.capacity_type != model::labels::capacity_type_reserved) return true;
  const auto* pinned = requirement(claim, std::string(model::labels::reservation_id));
  if (pinned == nullptr || pinned->operator_ != "In" || pinned->values.size() != 1) return false;
  return std::any_of(type.reservations.begin(), type.reservations.end(),
                     [&](const auto& r) { return r.id == pinned->values.front(); });
}

std::string capacity_type_of(const instance_types::instance_type& type) {
  return type.capacity_type.empty() ? std::string(model::labels::capacity_type_on_demand)
                                    : type.capacity_type;
}

std::vector<protocol::security_group_rule> security_groups_of(
    const kube::proxmox_node_class& node_class) {
  std::vector<protocol::security_group_rule> out;
  for (const auto& g : node_class.spec.security_groups) {
    out.push_back({g.interface.empty() ? "net0" : g.interface, g.name});
  }
  return out;
}

// Proxmox's drive `cache` values.
const std::vector<std::string> disk_cache_modes = {"none", "writethrough", "writeback", "unsafe",
                                                   "directsync"};

// "30G", "30Gi" -> 30; "1T", "1Ti" -> 1024. Proxmox means GiB by "G" (the Go provider writes
// the number with "G" into the resize call).
std::optional<std::uint64_t> disk_gib(std::string_view size) {
  std::uint64_t n = 0;
  std::size_t i = 0;
  for (; i < size.size() && size[i] >= '0' && size[i] <= '9'; ++i) {
    if (n > (std::uint64_t{1} << 40)) return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(size[i] - '0');
  }
  if (i == 0) return std::nullopt;
  auto unit = size.substr(i);
  if (unit == "G" || unit == "Gi") return n;
  if (unit == "T" || unit == "Ti") return n * 1024;
  return std::nullopt;
}

}  // namespace

status apply_node_class(protocol::launch_request& request,
                        const kube::proxmox_node_class& node_class) {
  const auto& spec = node_class.spec;
  auto invalid = [&](const std::string& field, const std::string& value) {
    return make_error("invalid_node_class", "ProxmoxNodeClass " + node_class.metadata.name + " " +
                                                field + " \"" + value + "\" is not valid");
  };
  std::uint64_t min_free_memory_mib = 0;
  if (!spec.min_free_memory.empty()) {
    auto q = model::parse_quantity(spec.min_free_memory);
    if (!q || q->value() < 0) return invalid("minFreeMemory", spec.min_free_memory);
    min_free_memory_mib = static_cast<std::uint64_t>(q->value()) >> 20;
  }
  std::uint64_t disk = 0;
  if (!spec.boot.size.empty()) {
    auto gib = disk_gib(spec.boot.size);
    if (!gib) return invalid("bootDevice.size", spec.boot.size);
    disk = *gib;
  }
  std::vector<protocol::data_disk> data_disks;
  for (std::size_t i = 0; i < spec.additional_disks.size(); ++i) {
    const auto& d = spec.additional_disks[i];
    const auto field = "additionalDisks[" + std::to_string(i) + "]";
    auto gib = disk_gib(d.size);
    if (!gib || *gib == 0) return invalid(field + ".size", d.size);
    if (!d.cache.empty() && !contains(disk_cache_modes, d.cache)) {
      return invalid(field + ".cache", d.cache);
    }
    protocol::data_disk disk;
    disk.size_gib = *gib;
    // The boot disk's storage: bootDevice.storage, else (left empty) the template's disk's.
    disk.storage = d.storage.empty() ? spec.boot.storage : d.storage;
    disk.cache = d.cache;
    disk.discard = d.discard.value_or(false);
    disk.iothread = d.iothread.value_or(false);
    disk.ssd = d.ssd.value_or(false);
    data_disks.push_back(std::move(disk));
  }
  auto pci = kube::pci_device_needs(node_class);
  if (!pci) return pci.error();
  if (!spec.clone_mode.empty() && spec.clone_mode != "linked" && spec.clone_mode != "full") {
    return invalid("cloneMode", spec.clone_mode);
  }
  if (spec.min_free_cpu && *spec.min_free_cpu < 0) {
    return invalid("minFreeCPU", std::to_string(*spec.min_free_cpu));
  }
  // metadataOptions.type/joinCommand, nodeLabels, sshKeys (kproximate's model).
  if (auto k = validate_kproximate_fields(node_class); !k) return k;
  if (!spec.zone_balance.empty()) request.strategy = spec.zone_balance;
  for (const auto& z : spec.excluded_zones) {
    if (!contains(request.excluded_zones, z)) request.excluded_zones.push_back(z);
  }
  request.min_free_cpu = spec.min_free_cpu ? static_cast<int>(*spec.min_free_cpu) : 0;
  request.min_free_memory_mib = min_free_memory_mib;
  request.disk_gib = disk;
  request.data_disks = std::move(data_disks);
  request.pci_devices.clear();
  for (const auto& d : *pci)
    request.pci_devices.push_back({d.mapping, d.resource_name, d.count, d.pcie, d.mdev});
  request.clone_mode = spec.clone_mode;
  request.tags = spec.tags;
  request.security_groups = security_groups_of(node_class);
  request.resource_pool = spec.resource_pool;
  // With cdrom the keys go into the user-data (the actor adds them to the values); otherwise
  // Proxmox's own cloud-init drive gets them through the config call.
  request.ssh_keys = spec.metadata.type == "cdrom" ? std::vector<std::string>{} : spec.ssh_keys;
  return {};
}

protocol::sync_vm_request sync_request_for(std::uint32_t vmid, const std::string& nodeclaim,
                                           const kube::proxmox_node_class& node_class) {
  protocol::sync_vm_request r;
  r.vmid = vmid;
  r.nodeclaim = nodeclaim;
  r.tags = node_class.spec.tags;
  r.security_groups = security_groups_of(node_class);
  r.resource_pool = node_class.spec.resource_pool;
  return r;
}

bool is_ours(const kube::node_claim& claim) {
  return claim.spec.node_class_ref.group == provider_group;
}

result<template_choice> resolve_template(const protocol::cluster_snapshot& snapshot,
                                         const kube::node_claim& claim) {
  const auto& ref = claim.spec.node_class_ref;
  const auto* nc = protocol::cluster_snapshot::find(snapshot.node_classes, ref.name);
  if (nc == nullptr) {
    return make_error("node_class_missing", "ProxmoxNodeClass " + ref.name + " not found");
  }
  template_choice choice;
  choice.node_class = nc;
  choice.region = nc->spec.region;
  const auto& tref = nc->spec.instance_template_ref;
  if (tref.kind == "ProxmoxTemplate") {
    const auto* t = protocol::cluster_snapshot::find(snapshot.templates, tref.name);
    if (t == nullptr) {
      return make_error("template_missing", "ProxmoxTemplate " + tref.name +
                                                " named by node class " + nc->metadata.name +
                                                " not found");
    }
    // A managed template's Proxmox VM carries the object's name.
    choice.template_name = t->metadata.name;
    choice.image_id = t->status.image_id;
    if (choice.region.empty()) choice.region = t->spec.region;
    return choice;
  }
  const auto* t = protocol::cluster_snapshot::find(snapshot.unmanaged_templates, tref.name);
  if (t == nullptr) {
    return make_error("template_missing", "ProxmoxUnmanagedTemplate " + tref.name +
                                              " named by node class " + nc->metadata.name +
                                              " not found");
  }
  if (t->spec.template_name.empty()) {
    return make_error("template_missing",
                      "ProxmoxUnmanagedTemplate " + tref.name + " has no templateName");
  }
  choice.template_name = t->spec.template_name;
  // Nothing writes an unmanaged template's imageID, so the template VM's name stands for it.
  choice.image_id = t->status.image_id.empty() ? t->spec.template_name : t->status.image_id;
  if (choice.region.empty()) choice.region = t->spec.region;
  return choice;
}

result<std::string> pick_region(const kube::node_claim& claim, const template_choice& choice,
                                const std::vector<std::string>& regions) {
  if (regions.empty()) return make_error("region_missing", "no Proxmox region is configured");
  if (const auto* r = requirement(claim, region_label); r != nullptr && r->operator_ == "In") {
    for (const auto& v : r->values) {
      if (contains(regions, v) && (choice.region.empty() || choice.region == v)) return v;
    }
    return make_error("region_missing",
                      "the claim asks for a region none of the configured "
                      "regions serves");
  }
  if (!choice.region.empty()) {
    if (contains(regions, choice.region)) return choice.region;
    return make_error("region_missing", "region " + choice.region + " is not configured");
  }
  return regions.front();
}

result<instance_types::instance_type> cheapest_instance_type(
    const std::vector<instance_types::instance_type>& types, const kube::node_claim& claim,
    const std::string& region, double memory_overhead_percent,
    const model::resource_list& devices) {
  auto requests = model::parse_resource_list(claim.spec.resource_requests);
  if (!requests) return requests.error();
  // Right-sized types exist by name only: the ones the claim lists join the candidates.
  std::vector<instance_types::instance_type> right_sized;
  if (const auto* listed = requirement(claim, instance_type_label);
      listed && listed->operator_ == "In")
    for (const auto& name : listed->values)
      if (auto size = instance_types::parse_right_sized_name(name))
        right_sized.push_back(instance_types::right_sized_type(*size, memory_overhead_percent));
  const instance_types::instance_type* best = nullptr;
  double best_price = 0;
  std::size_t compatible = 0;
  const std::vector<instance_types::instance_type>* lists[] = {&types, &right_sized};
  for (const auto* list : lists)
    for (const auto& t : *list) {
      auto labels = type_labels(t, region);
      bool ok = std::all_of(claim.spec.requirements.begin(), claim.spec.requirements.end(),
                            [&](const auto& r) { return satisfies(labels, r); });
      if (!ok || !may_launch_reserved(t, claim)) continue;
      ++compatible;
      // With per-host overrides the provisioner kept the claim to hosts where its types fit.
      auto allocatable = instance_types::largest_allocatable(t);
      allocatable += devices;
      if (!requests->fits_in(allocatable)) continue;
      double p = price_of(t, region);
      if (best == nullptr || p < best_price || (p == best_price && t.name < best->name)) {
        best = &t;
        best_price = p;
      }
    }
  if (best == nullptr) {
    return make_error("no_capacity", std::to_string(compatible) + " of " +
                                         std::to_string(types.size() + right_sized.size()) +
                                         " instance types match the requirements and none of "
                                         "them holds the requested resources");
  }
  return *best;
}

zone_limits zones_for(const kube::node_claim& claim, const kube::proxmox_node_class& node_class) {
  zone_limits z;
  z.excluded = node_class.spec.excluded_zones;
  for (const auto& r : claim.spec.requirements) {
    if (r.key != zone_label) continue;
    if (r.operator_ == "In") z.allowed = r.values;
    if (r.operator_ == "NotIn")
      z.excluded.insert(z.excluded.end(), r.values.begin(), r.values.end());
  }
  return z;
}

std::map<std::string, std::string> launch_labels(const kube::node_claim& claim,
                                                 const instance_types::instance_type& type,
                                                 const std::string& region, const std::string& zone,
                                                 const std::string& node_class) {
  std::map<std::string, std::string> labels;
  // Single-valued In requirements become labels, as Karpenter does.
  for (const auto& r : claim.spec.requirements) {
    if (r.operator_ == "In" && r.values.size() == 1) labels[r.key] = r.values.front();
  }
  labels[zone_label] = zone;
  labels[region_label] = region;
  labels[instance_type_label] = type.name;
  labels[capacity_type_label] = capacity_type_of(type);
  labels[instance_family_label] = type.family;
  labels[node_class_label] = node_class;
  labels["kubernetes.io/arch"] = "amd64";
  labels["kubernetes.io/os"] = "linux";
  return labels;
}

kube::resource_list to_kube(const model::resource_list& resources) {
  kube::resource_list out;
  for (const auto& [name, q] : resources.items()) out[name] = model::to_string(q);
  return out;
}

cloudinit::nocloud_plan make_iso_plan(const kube::node_claim& claim,
                                      const kube::proxmox_node_class& node_class,
                                      const instance_types::instance_type& type,
                                      std::string bootstrap_token, std::string endpoint,
                                      std::string ca_pem, std::string kubernetes_version) {
  cloudinit::nocloud_plan plan;
  auto& in = plan.inputs;
  in.hostname = claim.metadata.name;
  in.instance_type = type.name;
  in.tags = node_class.spec.tags;
  in.node_class = node_class.metadata.name;
  in.cpus = type.vm_cpus;
  in.memory_bytes = type.vm_memory_bytes;
  in.kubernetes_version = std::move(kubernetes_version);
  in.root_ca_pem = std::move(ca_pem);
  in.bootstrap_token = std::move(bootstrap_token);
  in.endpoint = std::move(endpoint);
  for (const auto& [k, v] : claim.metadata.labels) in.node_labels[k] = v;
  in.node_labels[instance_type_label] = type.name;
  in.node_labels[capacity_type_label] = capacity_type_of(type);
  in.node_labels[instance_family_label] = type.family;
  in.node_labels[node_class_label] = node_class.metadata.name;
  // The kubelet: the type's reserved resources and maxPods, then the node class's settings; the
  // region fills in the providerID.
  in.kubelet = cloudinit::kubelet_defaults_for(type, "");
  if (node_class.spec.kubelet) {
    const auto& k = *node_class.spec.kubelet;
    if (!k.cpu_manager_policy.empty()) in.kubelet.cpu_manager_policy = k.cpu_manager_policy;
    if (k.cpu_cfs_quota) in.kubelet.cpu_cfs_quota = k.cpu_cfs_quota;
    if (!k.topology_manager_policy.empty())
      in.kubelet.topology_manager_policy = k.topology_manager_policy;
    if (!k.topology_manager_scope.empty())
      in.kubelet.topology_manager_scope = k.topology_manager_scope;
    if (k.image_gc_high_threshold_percent)
      in.kubelet.image_gc_high_threshold_percent =
          static_cast<int>(*k.image_gc_high_threshold_percent);
    if (k.image_gc_low_threshold_percent)
      in.kubelet.image_gc_low_threshold_percent =
          static_cast<int>(*k.image_gc_low_threshold_percent);
    if (!k.shutdown_grace_period.empty())
      in.kubelet.shutdown_grace_period = k.shutdown_grace_period;
    if (!k.allowed_unsafe_sysctls.empty())
      in.kubelet.allowed_unsafe_sysctls = k.allowed_unsafe_sysctls;
    if (!k.cluster_dns.empty()) in.kubelet.cluster_dns = k.cluster_dns;
    if (k.max_pods) in.kubelet.max_pods = static_cast<int>(*k.max_pods);
    if (k.fail_swap_on) in.kubelet.fail_swap_on = k.fail_swap_on;
  }
  auto register_taints = claim.spec.taints;
  for (const auto& t : claim.spec.startup_taints) register_taints.push_back(t);
  for (const auto& t : register_taints) {
    bool present = false;
    for (const auto& have : in.kubelet.register_with_taints) {
      present = present || (have.key == t.key && have.effect == t.effect);
    }
    if (!present) in.kubelet.register_with_taints.push_back({t.key, t.value, t.effect});
  }
  return plan;
}

}  // namespace kp::actors::nodeclaim
