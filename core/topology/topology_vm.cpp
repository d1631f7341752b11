#include "core/topology/topology_vm.hpp"

#include <algorithm>
#include <charconv>
#include <vector>

#include "core/text/trim.hpp"

namespace kp::topology {
namespace {

kp::error invalid(int vmid, std::string_view key, std::string_view value, std::string_view why) {
  return make_error("invalid_topology_vm", "topology VM " + std::to_string(vmid) + ": " +
                                               std::string(key) + " \"" + std::string(value) +
                                               "\": " + std::string(why));
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    auto pos = s.find(sep);
    out.push_back(text::trim(s.substr(0, pos)));
    if (pos == std::string_view::npos) break;
    s.remove_prefix(pos + 1);
  }
  return out;
}

std::optional<std::int64_t> number(std::string_view s) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

// A CPU list in the order written ("0-7,16-23,8-15"): the order is the guest-to-host map, so
// it cannot go through cpu_set, which sorts.
std::optional<std::vector<int>> ordered_cpus(std::string_view text, char sep) {
  std::vector<int> out;
  for (auto piece : split(text, sep)) {
    auto dash = piece.find('-');
    auto first = number(piece.substr(0, dash));
    auto last = dash == std::string_view::npos ? first : number(piece.substr(dash + 1));
    if (!first || !last || *last < *first || *last > 8191) return std::nullopt;
    for (auto c = *first; c <= *last; ++c) out.push_back(static_cast<int>(c));
  }
  return out;
}

struct numa_entry {
  std::string key;
  std::string value;
  std::vector<int> guest_cpus;
  int host_node = 0;
  std::int64_t memory_mib = 0;
};

result<numa_entry> parse_numa(int vmid, const std::string& key, const std::string& value) {
  numa_entry e{key, value, {}, -1, 0};
  bool have_cpus = false;
  for (auto prop : split(value, ',')) {
    auto eq = prop.find('=');
    auto name = prop.substr(0, eq);
    auto v = eq == std::string_view::npos ? std::string_view{} : prop.substr(eq + 1);
    if (name == "cpus") {
      auto cpus = ordered_cpus(v, ';');
      if (!cpus) return invalid(vmid, key, value, "cpus is not a CPU list");
      e.guest_cpus = std::move(*cpus);
      have_cpus = true;
    } else if (name == "hostnodes") {
      auto id = number(v);
      if (!id || *id > 1023) {
        return invalid(vmid, key, value, "hostnodes must name exactly one host NUMA node");
      }
      e.host_node = static_cast<int>(*id);
    } else if (name == "memory") {
      auto mib = number(v);
      if (!mib) return invalid(vmid, key, value, "memory is not a size in MiB");
      e.memory_mib = *mib;
    }
    // policy=bind and anything newer: not part of the topology.
  }
  if (!have_cpus) return invalid(vmid, key, value, "cpus is missing");
  if (e.host_node < 0) return invalid(vmid, key, value, "hostnodes is missing");
  return e;
}

bool has_tag(std::string_view tags, std::string_view tag) {
  for (char sep : {';', ',', ' '}) {
    if (tags.find(sep) != std::string_view::npos) {
      for (auto t : split(tags, sep)) {
        if (t == tag) return true;
      }
      return false;
    }
  }
  return text::trim(tags) == tag;
}

}  // namespace

bool is_topology_vm(std::string_view name, std::string_view tags) {
  return name == topology_vm_name && has_tag(tags, topology_vm_tag);
}

result<placement::host_topology> topology_from_vm_config(
    int vmid, const std::map<std::string, std::string>& config, const cpu_info& info) {
  auto affinity_it = config.find("affinity");
  if (affinity_it == config.end() || text::trim(affinity_it->second).empty()) {
    return make_error("invalid_topology_vm", "topology VM " + std::to_string(vmid) +
                                                 ": affinity is missing (the host daemon writes "
                                                 "every host CPU there)");
  }
  auto guest_to_host = ordered_cpus(affinity_it->second, ',');
  if (!guest_to_host || guest_to_host->empty()) {
    return invalid(vmid, "affinity", affinity_it->second, "not a CPU list");
  }
  placement::cpu_set all;
  for (int c : *guest_to_host) {
    if (all.contains(c)) {
      return invalid(vmid, "affinity", affinity_it->second,
                     "host CPU " + std::to_string(c) + " listed twice");
    }
    all.insert(c);
  }

  placement::host_topology t;
  t.reserved_memory_bytes = 0;  // the daemon already left 1 GiB per NUMA node out
  placement::cpu_set covered;
  for (const auto& [key, value] : config) {
    if (key.size() <= 4 || key.compare(0, 4, "numa") != 0 || !number(key.substr(4))) continue;
    auto entry = parse_numa(vmid, key, value);
    if (!entry) return entry.error();
    placement::numa_node node;
    node.id = entry->host_node;
    for (int guest : entry->guest_cpus) {
      if (guest >= static_cast<int>(guest_to_host->size())) {
        return invalid(vmid, key, value,
                       "guest CPU " + std::to_string(guest) + " is beyond the " +
                           std::to_string(guest_to_host->size()) + " CPUs of affinity");
      }
      node.cpus.insert((*guest_to_host)[static_cast<std::size_t>(guest)]);
    }
    if (node.cpus.intersects(covered)) {
      return invalid(vmid, key, value, "guest CPUs overlap another numaN entry");
    }
    for (const auto& other : t.numa_nodes) {
      if (other.id == node.id) return invalid(vmid, key, value, "host node listed twice");
    }
    covered = covered | node.cpus;
    node.memory_bytes = entry->memory_mib << 20;
    t.numa_nodes.push_back(std::move(node));
  }
  if (t.numa_nodes.empty()) {
    // No numaN: one node with every CPU and the VM's memory (the Go provider's fallback).
    placement::numa_node node;
    node.cpus = all;
    if (auto m = config.find("memory"); m != config.end()) {
      auto mib = number(text::trim(m->second));
      if (!mib) return invalid(vmid, "memory", m->second, "not a size in MiB");
      node.memory_bytes = *mib << 20;
    }
    t.numa_nodes.push_back(std::move(node));
  }
  std::sort(t.numa_nodes.begin(), t.numa_nodes.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });

  // The VM says which CPUs exist, the node status how they group into sockets and cores.
  int cpus = all.size();
  t.sockets = info.sockets > 0 ? info.sockets : 1;
  t.cores_per_socket = info.cores_per_socket > 0 ? info.cores_per_socket : cpus / t.sockets;
  int physical = t.sockets * t.cores_per_socket;
  if (physical <= 0 || cpus % physical != 0) {
    // The status disagrees with the VM: trust the VM, assume no SMT.
    t.sockets = 1;
    t.cores_per_socket = cpus;
    t.threads_per_core = 1;
  } else {
    t.threads_per_core = cpus / physical;
  }
  return t;
}

}  // namespace kp::topology
