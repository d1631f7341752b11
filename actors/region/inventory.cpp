#include "actors/region/inventory.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <vector>

#include "actors/region/pci_passthrough.hpp"
#include "core/ownership/vm_mark.hpp"
#include "protocol/proxmox/property_string.hpp"

namespace kp::actors::region {

placement::vm_allocation allocation_from_config(int vmid, const proxmox::vm_config& config,
                                                bool managed) {
  placement::vm_allocation a;
  a.vmid = vmid;
  a.vcpus = static_cast<int>(config.sockets.value_or(1) * config.cores.value_or(1));
  a.memory_bytes = static_cast<std::int64_t>(config.memory_mib.value_or(512)) << 20;
  a.managed = managed;
  a.pci = mapped_pci_devices(config);
  if (config.affinity && !config.affinity->empty()) {
    for (unsigned c : *config.affinity) a.pinned.insert(static_cast<int>(c));
  } else if (config.description) {
    auto plan = ownership::description_affinity(*config.description);
    if (!plan.empty()) {
      if (auto parsed = placement::cpu_set::parse(plan)) a.pinned = *parsed;
    }
  }
  for (const auto& [index, node] : config.numa_nodes) {
    (void)index;
    if (node.cpus.empty() || node.hostnodes.empty()) continue;
    placement::numa_binding b;
    b.first_guest_cpu = static_cast<int>(node.cpus.front());
    b.last_guest_cpu = static_cast<int>(node.cpus.back());
    b.host_node = static_cast<int>(node.hostnodes.front());
    b.memory_bytes = static_cast<std::int64_t>(node.memory_mib.value_or(0)) << 20;
    a.numa.push_back(b);
  }
  return a;
}

namespace {

// The Go provider's topology VM: its name and the tags of its config.
bool is_topology_vm(const std::string& vm_name, const proxmox::vm_config& config) {
  auto tags = config.raw.find("tags");
  return topology::is_topology_vm(vm_name, tags == config.raw.end() ? "" : tags->second);
}

}  // namespace

void keep_read_keys(proxmox::vm_config& config, const std::string& vm_name) {
  if (config.is_template || is_topology_vm(vm_name, config)) return;
  std::erase_if(config.raw, [](const auto& entry) {
    const auto& key = entry.first;
    return key != "meta" && key != "tags" && !key.starts_with("hostpci");
  });
}

std::int64_t creation_time(const proxmox::vm_config& config) {
  auto it = config.raw.find("meta");
  if (it == config.raw.end()) return 0;
  auto props = proxmox::parse_property_string(it->second);
  if (!props) return 0;
  auto ctime = proxmox::find_property(*props, "ctime");
  if (!ctime) return 0;
  std::int64_t seconds = 0;
  auto [end, ec] = std::from_chars(ctime->data(), ctime->data() + ctime->size(), seconds);
  if (ec != std::errc{} || end != ctime->data() + ctime->size()) return 0;
  return seconds;
}

std::optional<std::string> boot_disk(const proxmox::vm_config& config) {
  for (const char* key : {"virtio0", "scsi0", "sata0", "ide0"}) {
    if (config.drives.count(key) != 0) return std::string(key);
  }
  return std::nullopt;
}

std::uint64_t drive_size_gib(const proxmox::drive& d) {
  auto size = d.option("size");
  if (!size || size->empty()) return 0;
  std::string_view s = *size;
  char unit = s.back();
  std::uint64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') break;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  switch (unit) {
    case 'T':
      return n * 1024;
    case 'G':
      return n;
    case 'M':
      return (n + 1023) / 1024;
    case 'K':
      return (n + 1024 * 1024 - 1) / (1024 * 1024);
    default:
      return (n + (1ull << 30) - 1) >> 30;
  }
}

std::optional<ownership::ownership_mark> mark_of(const vm_record& vm) {
  if (!vm.config || !vm.config->description) return std::nullopt;
  return ownership::parse_ownership_mark(*vm.config->description);
}

inventory_listing listing_from_resources(const std::vector<proxmox::cluster_resource>& resources) {
  inventory_listing out;
  for (const auto& res : resources) {
    if (res.type != "node") continue;
    auto& h = out.hosts[res.node];
    h.name = res.node;
    h.status = res.status.empty() ? "unknown" : res.status;
    h.cpu = res.cpu;
  }
  for (const auto& res : resources) {
    if (res.type == "storage") {
      if (!res.plugintype.empty()) out.storage_types[res.storage] = res.plugintype;
      bool iso = res.content.find("iso") != std::string::npos;
      auto h = out.hosts.find(res.node);
      if (iso && h != out.hosts.end() && res.status == "available") {
        h->second.iso_storages.push_back(res.storage);
      }
      if (h != out.hosts.end()) {
        proxmox::storage_info info;
        info.storage = res.storage;
        info.type = res.plugintype;
        info.content = res.content;
        info.active = res.status == "available";
        info.enabled = true;  // /cluster/resources lists only storages enabled on the node
        info.shared = res.shared;
        info.total = res.maxdisk;
        info.used = std::min(res.disk, res.maxdisk);
        info.avail = res.maxdisk - info.used;
        h->second.storages.push_back(std::move(info));
      }
    } else if (res.type == "qemu" || res.type == "lxc") {
      vm_record vm;
      vm.vmid = res.vmid;
      vm.node = res.node;
      vm.name = res.name;
      vm.status = res.status;
      vm.lock = res.lock;
      vm.is_template = res.template_;
      vm.is_container = res.type == "lxc";  // holds a VMID; never placed, never ours
      vm.pool = res.pool;
      out.vms[res.vmid] = std::move(vm);
    }
  }
  return out;
}

namespace {

bool counts_for_placement(const vm_record& vm) {
  return !vm.is_template && !vm.is_container && vm.name != capacity_vm_name &&
         vm.config.has_value();
}

}  // namespace

result<topology::resolved_topology> host_topology_of(const std::string& region,
                                                     const host_record& host,
                                                     const std::map<std::uint32_t, vm_record>& vms,
                                                     const topology::node_settings_file* file) {
  if (!host.node_status) {
    return make_error("topology_unknown", "host " + host.name + ": its status was not read");
  }
  const auto& ci = host.node_status->cpuinfo;
  topology::host_observation seen;
  seen.region = region;
  seen.host = host.name;
  seen.cpu.sockets = std::max(1, static_cast<int>(ci.sockets));
  // Proxmox reports physical cores summed over the sockets.
  seen.cpu.cores_per_socket = std::max(1, static_cast<int>(ci.cores) / seen.cpu.sockets);
  seen.cpu.cpus = static_cast<int>(ci.cpus);
  seen.memory_bytes = static_cast<std::int64_t>(host.node_status->memory_total);
  for (const auto& [id, vm] : vms) {
    if (vm.node != host.name || !vm.config) continue;
    if (!is_topology_vm(vm.name, *vm.config)) continue;
    seen.topology_vm = topology::host_observation::vm{static_cast<int>(id), vm.config->raw};
    break;
  }
  return topology::resolve_host_topology(seen, file);
}

placement::host_state placement_host_of(const host_record& host,
                                        const placement::host_topology& topology,
                                        const std::map<std::uint32_t, vm_record>& vms,
                                        const reservations& reserved,
                                        const std::string& cluster_name) {
  placement::host_state hs(host.name, topology);
  hs.online = host.online();
  hs.reported_cpu_load = host.cpu;
  for (const auto& [id, vm] : vms) {
    if (vm.node != host.name || !counts_for_placement(vm)) continue;
    // A VM still being launched holds what its reservation says (its config is not final).
    if (reserved.count(id) != 0) continue;
    auto mark = mark_of(vm);
    bool ours = mark && mark->cluster == cluster_name;
    // Stopped VMs of others hold nothing (the Go provider counts running VMs only); ours
    // will run again.
    if (!ours && vm.status != "running") continue;
    hs.add(allocation_from_config(static_cast<int>(id), *vm.config, ours));
  }
  for (const auto& [id, r] : reserved) {
    if (r.first == host.name) hs.add(r.second);
  }
  return hs;
}

result<launch_hosts> launch_hosts_for(const protocol::launch_request& req,
                                      const std::map<std::uint32_t, vm_record>& vms,
                                      const std::string& region) {
  launch_hosts out;
  for (const auto& [id, vm] : vms) {
    if (vm.is_template && !vm.is_container && vm.name == req.template_name && vm.config) {
      out.templates[vm.node] = id;
    }
  }
  if (out.templates.empty()) {
    return make_error("template_missing",
                      "template '" + req.template_name + "' is on no host of region " + region);
  }
  out.filter.excluded_hosts = req.excluded_zones;
  for (const auto& [host, id] : out.templates) {
    (void)id;
    if (req.zones.empty() ||
        std::find(req.zones.begin(), req.zones.end(), host) != req.zones.end()) {
      out.filter.allowed_hosts.push_back(host);
    }
  }
  if (out.filter.allowed_hosts.empty()) {
    return make_error("template_missing",
                      "template '" + req.template_name + "' is on none of the allowed zones");
  }
  out.filter.min_free_cpu = req.min_free_cpu;
  out.filter.min_free_memory = static_cast<std::int64_t>(req.min_free_memory_mib) << 20;
  return out;
}

}  // namespace kp::actors::region
